import AdamantCore

/// The page each of a watch's streams is handing over, a row per account and stream: the
/// cursor before the page, the page's new notifications, and how many of them were handed
/// over. The row is written in the transaction that records the page, and its count after each
/// notification the watch hands over, so that a watch killed outright hands over again, at its
/// next start, only the notification it was handing over at the kill
/// (`NotificationLog.recoverInterruptedPage`). This table is the one record of what was
/// handed over.
enum HandingOver {
    /// The table as schema 5 made it.
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

    /// The steps of schemas 6 and 7, which leave the table as `page` reads it.
    static let serialColumn = "ALTER TABLE handing_over ADD COLUMN serial INTEGER NOT NULL DEFAULT 0;"
    static let withoutSerial = "ALTER TABLE handing_over DROP COLUMN serial;"

    /// A page being handed over, as its row says.
    struct Page: Hashable {
        /// The cursor before the page.
        var from: WatchCursor
        /// The page's new notifications, in the order they are handed over.
        var ids: [TransactionID]
        /// How many of them were handed over.
        var handedOver: Int

        /// Recorded but not handed over, in page order.
        var undelivered: [TransactionID] { Array(ids[min(handedOver, ids.count)...]) }
    }

    /// Keeps `ids`, read from `from`, as the page `account`'s `stream` is handing over, none of
    /// them handed over yet, in place of the page before it.
    static func start(
        account: String, stream: WatchStream, from: WatchCursor, ids: [TransactionID], _ db: SQLiteConnection
    ) throws {
        try db.query(
            """
            INSERT OR REPLACE INTO handing_over (account, stream, height, skip, ids, handed_over)
            VALUES (?1, ?2, ?3, ?4, ?5, 0)
            """,
            [
                .text(account), .text(stream.rawValue), .integer(max(0, from.height)),
                .integer(Int64(max(0, from.skip))), .blob(WatchedPages.bytes(of: ids)),
            ])
    }

    /// The first `count` of the page `account`'s `stream` is handing over were handed over.
    static func count(_ count: Int, account: String, stream: WatchStream, _ db: SQLiteConnection) throws {
        try db.query(
            "UPDATE handing_over SET handed_over = ?3 WHERE account = ?1 AND stream = ?2",
            [.text(account), .text(stream.rawValue), .integer(Int64(count))])
    }

    /// The page `account`'s `stream` was handing over, if one is kept.
    static func page(account: String, stream: WatchStream, _ db: SQLiteConnection) throws -> Page? {
        let rows = try db.query(
            "SELECT height, skip, ids, handed_over FROM handing_over WHERE account = ?1 AND stream = ?2",
            [.text(account), .text(stream.rawValue)])
        guard let row = rows.first, let height = row.integer(0), let skip = row.integer(1), let ids = row.blob(2),
            let handedOver = row.integer(3)
        else { return nil }
        return Page(
            from: WatchCursor(height: height, skip: Int(clamping: skip)), ids: WatchedPages.ids(in: ids),
            handedOver: Int(clamping: handedOver))
    }

    /// Nothing of the page is left to recover.
    static func clear(account: String, stream: WatchStream, _ db: SQLiteConnection) throws {
        try db.query(
            "DELETE FROM handing_over WHERE account = ?1 AND stream = ?2", [.text(account), .text(stream.rawValue)])
    }
}
