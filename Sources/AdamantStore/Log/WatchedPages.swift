import AdamantCore

/// What `watch` handed over from blocks, a page to a row of `watched_pages`: the page's ids,
/// 8 bytes each (little-endian, in the order handed over), and the blocks they lie in, `first`
/// to `last`. A row an id would cost the backlog scan a hundred b-tree inserts a page, about
/// 5% of it. An id is one transaction wherever it is found: the heights only narrow where to
/// look.
enum WatchedPages {
    static let schema = """
        CREATE TABLE watched_pages (
            account TEXT NOT NULL,
            first INTEGER NOT NULL,
            last INTEGER NOT NULL CHECK (last >= first),
            ids BLOB NOT NULL
        ) STRICT;
        -- Pages come in chain order, so the ones a lookup reaches are the last few; with
        -- `first` here, the pages above a block that do not reach down to it are passed over
        -- without reading their rows.
        CREATE INDEX watched_pages_by_last ON watched_pages (account, last, first);
        """

    /// Keeps `transactions` of `account` as one page; none keeps nothing.
    static func insert(_ transactions: [WatchedTransaction], account: String, _ db: SQLiteConnection) throws {
        guard let first = transactions.lazy.map(\.height).min(), let last = transactions.lazy.map(\.height).max() else {
            return
        }
        try db.query(
            "INSERT INTO watched_pages (account, first, last, ids) VALUES (?1, ?2, ?3, ?4)",
            [.text(account), .integer(first), .integer(last), .blob(bytes(of: transactions.map(\.id)))])
    }

    /// The ids of `account`'s pages that reach into blocks `low` through `high`.
    static func ids(account: String, reaching low: Int64, through high: Int64 = .max, _ db: SQLiteConnection) throws
        -> Set<TransactionID>
    {
        var found = Set<TransactionID>()
        try db.forEachRow(
            "SELECT ids FROM watched_pages WHERE account = ?1 AND last >= ?2 AND first <= ?3",
            [.text(account), .integer(low), .integer(high)]
        ) { row in
            guard let bytes = row.blob(0) else { return }
            found.formUnion(ids(in: bytes))
        }
        return found
    }

    /// Takes `removed` out of `account`'s pages that reach block `low` or above; a page left
    /// empty goes.
    static func remove(_ removed: Set<TransactionID>, account: String, reaching low: Int64, _ db: SQLiteConnection)
        throws
    {
        guard !removed.isEmpty else { return }
        let rows = try db.query(
            "SELECT rowid, ids FROM watched_pages WHERE account = ?1 AND last >= ?2", [.text(account), .integer(low)])
        for row in rows {
            guard let rowid = row.integer(0), let bytes = row.blob(1) else { continue }
            let ids = ids(in: bytes)
            let kept = ids.filter { !removed.contains($0) }
            if kept.count == ids.count { continue }
            if kept.isEmpty {
                try db.query("DELETE FROM watched_pages WHERE rowid = ?1", [.integer(rowid)])
            } else {
                try db.query(
                    "UPDATE watched_pages SET ids = ?2 WHERE rowid = ?1",
                    [.integer(rowid), .blob(self.bytes(of: kept))])
            }
        }
    }

    /// Moves the rows of the `watched` table (an id a row) into pages of a hundred, in block
    /// order, and drops it.
    static func migrateRows(_ db: SQLiteConnection) throws {
        var page: [WatchedTransaction] = []
        var account = ""
        try db.forEachRow("SELECT account, height, id FROM watched ORDER BY account, height, id") { row in
            let values = row.values
            guard let rowAccount = values.text(0), let height = values.integer(1), let id = values.integer(2) else {
                return
            }
            if rowAccount != account || page.count == 100 {
                try insert(page, account: account, db)
                (account, page) = (rowAccount, [])
            }
            page.append(WatchedTransaction(id: TransactionID(number: UInt64(bitPattern: id)), height: height))
        }
        try insert(page, account: account, db)
        try db.execute("DROP TABLE watched")
    }

    /// `ids` packed 8 bytes each, little-endian (the page being handed over packs them alike).
    static func bytes(of ids: [TransactionID]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 * ids.count)
        for id in ids {
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: id.number >> shift)) }
        }
        return bytes
    }

    /// The ids packed in `bytes`; a ragged tail (a file changed outside adm-push) is not one.
    static func ids(in bytes: [UInt8]) -> [TransactionID] {
        stride(from: 0, to: bytes.count - 7, by: 8).map { start in
            var number: UInt64 = 0
            for index in (start..<start + 8).reversed() { number = number << 8 | UInt64(bytes[index]) }
            return TransactionID(number: number)
        }
    }
}
