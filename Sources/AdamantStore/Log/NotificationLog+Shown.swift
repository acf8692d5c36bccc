public import AdamantCore

/// What was shown, and by which way: for a push, by a fetch, from a socket (in `shown`, by
/// id), or handed over by `watch` from blocks (`WatchedPages`, by the blocks of its pages).
extension NotificationLog {
    /// Records that `id` was shown to `account` (`pushed` when a push brought it) and says
    /// whether it had been shown before, by `watch` too. A later pushed showing marks an
    /// earlier one pushed. `height`, the transaction's block, when it was in one: `watch`
    /// keeps what it handed over by the blocks of its pages, so without it only other
    /// showings count.
    public func recordShown(
        _ id: TransactionID, account: Address, pushed: Bool, at unixMillis: Int64, height: Int64? = nil
    ) async throws(StoreError) -> Bool {
        let (account, number) = (account.description, Int64(bitPattern: id.number))
        return try await write { db in
            let before = try Self.wasShown(number, at: height, account: account, db)
            try db.query(
                """
                INSERT INTO shown (account, id, shown_at, pushed, height) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (account, id) DO UPDATE SET pushed = max(pushed, excluded.pushed), height = coalesce(height, excluded.height)
                """,
                [
                    .text(account), .integer(number), .integer(unixMillis), .integer(pushed ? 1 : 0),
                    height.map(SQLiteValue.integer) ?? .null,
                ])
            return before
        }
    }

    /// A transaction a push brought: when it was shown, and its block.
    public struct Push: Sendable, Hashable {
        /// The transaction the push brought.
        public var id: TransactionID
        /// When it was first shown (Unix ms).
        public var shownAt: Int64
        /// Its block, when it was in one then.
        public var height: Int64?
    }

    /// Every transaction a push brought to `account`, oldest first.
    public func pushes(to account: Address) async throws(StoreError) -> [Push] {
        let rows = try await read { db in
            try db.query(
                "SELECT id, shown_at, height FROM shown WHERE account = ?1 AND pushed = 1 ORDER BY shown_at",
                [.text(account.description)])
        }
        return rows.compactMap { row in
            guard let id = row.integer(0), let shownAt = row.integer(1) else { return nil }
            return Push(id: TransactionID(number: UInt64(bitPattern: id)), shownAt: shownAt, height: row.integer(2))
        }
    }

    /// Which of `transactions` were shown to `account` before (by `watch` or for a push), as
    /// `wasShown` tells, a page in one statement.
    public func shown(among transactions: [WatchedTransaction], account: Address) async throws(StoreError) -> Set<
        TransactionID
    > {
        guard !transactions.isEmpty else { return [] }
        let account = account.description
        return try await read { db in try Self.shown(among: transactions, account: account, db) }
    }

    /// Which of `ids`, transactions a node's socket announced before a block held them, were
    /// shown to `account` before: for a push, by a fetch, from a socket, or handed over in a
    /// page that reaches block `height` (where the watch's listings read now: a transaction
    /// still in the pool lands in no block below that).
    public func shown(pooled ids: [TransactionID], account: Address, fromHeight height: Int64) async throws(StoreError)
        -> Set<TransactionID>
    {
        guard !ids.isEmpty else { return [] }
        let account = account.description
        return try await read { db in
            let watched = try WatchedPages.ids(account: account, reaching: max(0, height), db)
            var found = Set<TransactionID>()
            for id in ids {
                if try watched.contains(id) || Self.isInShown(Int64(bitPattern: id.number), account: account, db) {
                    found.insert(id)
                }
            }
            return found
        }
    }

    /// `shown(among:account:)` inside a transaction, for a page's record too.
    static func shown(among transactions: [WatchedTransaction], account: String, _ db: SQLiteConnection) throws
        -> Set<TransactionID>
    {
        guard let low = transactions.lazy.map(\.height).min(), let high = transactions.lazy.map(\.height).max() else {
            return []
        }
        let asked = Set(transactions.lazy.map(\.id))
        var found = Set<TransactionID>()
        for values in ShownAmong.bindings(account: account, transactions.map(\.id)) {
            for row in try db.query(ShownAmong.sql, values) {
                // A damaged b-tree can answer an `IN` with a row it does not hold.
                guard let id = row.integer(0).map({ TransactionID(number: UInt64(bitPattern: $0)) }), asked.contains(id)
                else { continue }
                found.insert(id)
            }
        }
        let watched = try WatchedPages.ids(account: account, reaching: low, through: high, db)
        if !watched.isEmpty { found.formUnion(transactions.lazy.map(\.id).filter(watched.contains)) }
        return found
    }

    /// Shown for a push or by a fetch (`shown`, by id; an older `watch` kept its own there
    /// too), or handed over by `watch` from block `height` (`WatchedPages`).
    private static func wasShown(_ id: Int64, at height: Int64?, account: String, _ db: SQLiteConnection) throws -> Bool
    {
        if try isInShown(id, account: account, db) { return true }
        guard let height else { return false }
        return try WatchedPages.ids(account: account, reaching: height, through: height, db).contains(
            TransactionID(number: UInt64(bitPattern: id)))
    }

    /// Shown for a push, by a fetch or from a socket: kept by id in `shown`.
    private static func isInShown(_ id: Int64, account: String, _ db: SQLiteConnection) throws -> Bool {
        try !db.query("SELECT 1 FROM shown WHERE account = ?1 AND id = ?2", [.text(account), .integer(id)]).isEmpty
    }
}

/// Which of a page's ids are in `shown`, bound to one statement (`?2…`, after the account as
/// `?1`) rather than a statement each, whose calls cost more than SQLite's work. Ids past the
/// page's end are NULL, which `IN` matches to nothing.
private enum ShownAmong {
    /// Ids a statement takes; a node's page is at most 100.
    static let count = 100

    static let sql =
        "SELECT id FROM shown WHERE account = ?1 AND id IN (\((0..<count).map { "?\($0 + 2)" }.joined(separator: ", ")))"

    /// What each statement for `ids` binds, `count` at a time: the account, the ids, then
    /// padding.
    static func bindings(account: String, _ ids: [TransactionID]) -> [[SQLiteValue]] {
        stride(from: 0, to: ids.count, by: count).map { start in
            var values: [SQLiteValue] = [.text(account)]
            values.reserveCapacity(1 + count)
            for id in ids[start..<min(start + count, ids.count)] {
                values.append(.integer(Int64(bitPattern: id.number)))
            }
            values += repeatElement(.null, count: 1 + count - values.count)
            return values
        }
    }
}
