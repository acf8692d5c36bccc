import AdamantCore

/// The page each of a watch's listings (`stream`) is handing over, a row per account and
/// listing: the cursor before the page and the page's new notifications, written in the
/// transaction that records the page, then the count handed over, rewritten after each one.
/// A restart takes out of the log what the row shows was recorded but never handed over and
/// puts the cursor back before the page (`NotificationLog.settleWatched`), so a watch killed
/// outright hands over again only the notification it was handing over at the kill.
///
/// The count is a commit of its own per notification, which the log's commits make cheap: no
/// fsync (what it guards against is a process killed outright, whose writes the kernel still
/// has), one page written to the WAL, the write lock taken and let go.
enum HandingOver {
    static let schema = """
        -- The page each listing of a watch is handing over: written with the page's record, in
        -- its transaction; `handed_over` counts the first of `ids` (packed as in
        -- `watched_pages`) handed over, rewritten after each. `height` and `skip`: the cursor
        -- before the page, where a restart reads again from.
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

    /// A page being handed over, as its row says.
    struct Page: Hashable {
        /// The cursor before the page.
        var from: WatchCursor
        /// The page's new notifications, in the order they are handed over.
        var ids: [TransactionID]
        /// How many of them were handed over: the first of `ids`.
        var handedOver: Int

        /// Recorded but not handed over, in page order.
        var undelivered: [TransactionID] { Array(ids[min(handedOver, ids.count)...]) }
    }

    /// Keeps `ids`, read from `from`, as the page `account`'s `stream` is handing over, none
    /// of them handed over yet, in place of the page before it.
    static func start(account: String, stream: String, from: WatchCursor, ids: [TransactionID], _ db: SQLiteConnection)
        throws
    {
        try db.query(
            """
            INSERT OR REPLACE INTO handing_over (account, stream, height, skip, ids, handed_over)
            VALUES (?1, ?2, ?3, ?4, ?5, 0)
            """,
            [
                .text(account), .text(stream), .integer(max(0, from.height)), .integer(Int64(max(0, from.skip))),
                .blob(WatchedPages.bytes(of: ids)),
            ])
    }

    /// The first `count` of the page's notifications were handed over.
    static func count(_ count: Int, account: String, stream: String, _ db: SQLiteConnection) throws {
        try db.query(
            "UPDATE handing_over SET handed_over = ?3 WHERE account = ?1 AND stream = ?2",
            [.text(account), .text(stream), .integer(Int64(count))])
    }

    /// The page `account`'s `stream` was handing over, if one is kept.
    static func page(account: String, stream: String, _ db: SQLiteConnection) throws -> Page? {
        let rows = try db.query(
            "SELECT height, skip, ids, handed_over FROM handing_over WHERE account = ?1 AND stream = ?2",
            [.text(account), .text(stream)])
        guard let row = rows.first, let height = row.integer(0), let skip = row.integer(1), let ids = row.blob(2),
            let handedOver = row.integer(3)
        else { return nil }
        return Page(
            from: WatchCursor(height: height, skip: Int(clamping: skip)), ids: WatchedPages.ids(in: ids),
            handedOver: Int(clamping: handedOver))
    }

    /// Nothing of the page is left to settle.
    static func clear(account: String, stream: String, _ db: SQLiteConnection) throws {
        try db.query(
            "DELETE FROM handing_over WHERE account = ?1 AND stream = ?2", [.text(account), .text(stream)])
    }
}
