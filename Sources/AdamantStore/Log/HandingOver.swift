import AdamantCore

/// The page each of a watch's listings (`stream`) is handing over, a row per account and
/// listing: the cursor before the page, the page's new notifications and a serial of its own,
/// written in the transaction that records the page. How many of them were handed over is
/// kept apart, in the watch's lease (`WatchLease`), by serial, rewritten after each one. A
/// restart takes out of the log what the two show was recorded but never handed over and puts
/// the cursor back before the page (`NotificationLog.recoverInterruptedPage`), so a watch killed
/// outright hands over again only the notification it was handing over at the kill.
///
/// The serial is random: a log that lost its last commits (its WAL gone) never makes a page
/// whose serial a lease holds for another.
enum HandingOver {
    static let schema = """
        -- The page each listing of a watch is handing over: written with the page's record, in
        -- its transaction. `ids` packed as in `watched_pages`; `height` and `skip`: the cursor
        -- before the page, where a restart reads again from; `handed_over`: a count a watch of
        -- schema 5 kept here, honoured as it is settled (the lease counts, by `serial`, since).
        CREATE TABLE handing_over (
            account TEXT NOT NULL,
            stream TEXT NOT NULL,
            height INTEGER NOT NULL CHECK (height >= 0),
            skip INTEGER NOT NULL CHECK (skip >= 0),
            ids BLOB NOT NULL,
            handed_over INTEGER NOT NULL CHECK (handed_over >= 0),
            PRIMARY KEY (account, stream)
        ) STRICT;
        """

    /// The page's serial, which the lease counts by.
    static let serialColumn = "ALTER TABLE handing_over ADD COLUMN serial INTEGER NOT NULL DEFAULT 0;"

    /// A page being handed over, as its row says.
    struct Page: Hashable {
        /// The cursor before the page.
        var from: WatchCursor
        /// The page's new notifications, in the order they are handed over.
        var ids: [TransactionID]
        /// Its serial, as the lease counts it.
        var serial: Int64
        /// What a watch of schema 5 counted here as handed over.
        var countedHere: Int

        /// Recorded but not handed over, in page order, with `handedOver` the lease's count.
        func undelivered(handedOver: Int) -> [TransactionID] {
            Array(ids[min(max(handedOver, countedHere), ids.count)...])
        }
    }

    /// Keeps `ids`, read from `from`, as the page `account`'s `stream` is handing over, in
    /// place of the page before it; returns the page's serial.
    static func start(
        account: String, stream: WatchStream, from: WatchCursor, ids: [TransactionID], _ db: SQLiteConnection
    )
        throws -> Int64
    {
        let serial = Int64.random(in: 1...Int64.max)
        try db.query(
            """
            INSERT OR REPLACE INTO handing_over (account, stream, height, skip, ids, handed_over, serial)
            VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)
            """,
            [
                .text(account), .text(stream.rawValue), .integer(max(0, from.height)),
                .integer(Int64(max(0, from.skip))),
                .blob(WatchedPages.bytes(of: ids)), .integer(serial),
            ])
        return serial
    }

    /// The page `account`'s `stream` was handing over, if one is kept.
    static func page(account: String, stream: WatchStream, _ db: SQLiteConnection) throws -> Page? {
        let rows = try db.query(
            "SELECT height, skip, ids, handed_over, serial FROM handing_over WHERE account = ?1 AND stream = ?2",
            [.text(account), .text(stream.rawValue)])
        guard let row = rows.first, let height = row.integer(0), let skip = row.integer(1), let ids = row.blob(2),
            let countedHere = row.integer(3), let serial = row.integer(4)
        else { return nil }
        return Page(
            from: WatchCursor(height: height, skip: Int(clamping: skip)), ids: WatchedPages.ids(in: ids),
            serial: serial, countedHere: Int(clamping: countedHere))
    }

    /// Nothing of the page is left to settle.
    static func clear(account: String, stream: WatchStream, _ db: SQLiteConnection) throws {
        try db.query(
            "DELETE FROM handing_over WHERE account = ?1 AND stream = ?2", [.text(account), .text(stream.rawValue)])
    }
}
