public import AdamantCore

/// What `adm-fetch` keeps in the home directory beside the outbox: the transactions it has
/// shown (to mark a push delivered twice as a duplicate, and to know which came by push), and
/// partners' public keys (an address's key never changes). Its own file, so a fetch never
/// waits on an outbox write.
public final class NotificationLog: Sendable {
    /// The log's file in the home directory.
    public static let fileName = "notifications.sqlite"
    private let database: SerialDatabase
    private let home: String

    /// Opens (creating if needed) the log in `home`, made 0700 with a 0600 file. Its commits
    /// wait for no fsync, since `adm-fetch` records a transaction before it prints the
    /// notification: a power loss can forget the last one shown (it may be shown again), never
    /// damage the file.
    public init(home: String) throws(StoreError) {
        database = try SerialDatabase.openPrivately(
            Self.fileName, of: .notificationLog, in: home, migrations: Self.migrations, durable: false)
        self.home = home
    }

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

    /// The key kept for `address`, if it was kept and still hashes to it.
    public func publicKey(of address: Address) async throws(StoreError) -> PublicKey? {
        let rows = try await read { db in
            try db.query("SELECT public_key FROM public_keys WHERE address = ?1", [.text(address.description)])
        }
        guard case .blob(let bytes)? = rows.first?.first, let key = try? PublicKey(bytes: bytes), key.address == address
        else { return nil }
        return key
    }

    /// Keeps `key` for `address` if it is that address's key (anything else is refused).
    public func remember(_ key: PublicKey, of address: Address) async throws(StoreError) {
        guard key.address == address else { return }
        try await write { db in
            try db.query(
                "INSERT OR REPLACE INTO public_keys (address, public_key) VALUES (?1, ?2)",
                [.text(address.description), .blob(key.bytes)])
        }
    }

    // MARK: Muted chats

    /// Mutes `account`'s chat with `partner` until `until` (Unix milliseconds).
    public func mute(_ partner: Address, account: Address, until: Int64) async throws(StoreError) {
        try await write { db in
            try db.query(
                "INSERT OR REPLACE INTO muted_chats (account, partner, until) VALUES (?1, ?2, ?3)",
                [.text(account.description), .text(partner.description), .integer(until)])
        }
    }

    /// `account`'s chats muted past `now`, each with its end; the ended ones are deleted.
    public func mutedChats(account: Address, now: Int64) async throws(StoreError) -> [Address: Int64] {
        let rows = try await write { db in
            try db.query("DELETE FROM muted_chats WHERE until <= ?1", [.integer(now)])
            return try db.query(
                "SELECT partner, until FROM muted_chats WHERE account = ?1", [.text(account.description)])
        }
        var muted: [Address: Int64] = [:]
        for row in rows {
            guard row.count == 2, case .text(let text) = row[0], case .integer(let until) = row[1],
                let partner = try? Address(text)
            else { continue }
            muted[partner] = until
        }
        return muted
    }

    // MARK: Notifications the desktop did not take

    /// `id` was not delivered to the desktop (its service was away) at `at`, Unix milliseconds.
    public func recordUndelivered(_ id: TransactionID, account: Address, at: Int64) async throws(StoreError) {
        try await write { db in
            try db.query(
                "INSERT OR IGNORE INTO undelivered (account, id, at) VALUES (?1, ?2, ?3)",
                [.text(account.description), .integer(Int64(bitPattern: id.number)), .integer(at)])
        }
    }

    /// `id` reached the desktop after all, or is given up.
    public func forgetUndelivered(_ id: TransactionID, account: Address) async throws(StoreError) {
        try await write { db in
            try db.query(
                "DELETE FROM undelivered WHERE account = ?1 AND id = ?2",
                [.text(account.description), .integer(Int64(bitPattern: id.number))])
        }
    }

    /// What the desktop did not take for `account`, in the order it was missed.
    public func undelivered(account: Address) async throws(StoreError) -> [TransactionID] {
        let rows = try await read { db in
            try db.query("SELECT id FROM undelivered WHERE account = ?1 ORDER BY at, id", [.text(account.description)])
        }
        return rows.compactMap { row in
            guard case .integer(let value)? = row.first else { return nil }
            return TransactionID(number: UInt64(bitPattern: value))
        }
    }

    // MARK: The watch cursor

    /// The lease of `account`'s watch on this log's home, held until it is released.
    public func leaseWatch(account: Address) throws(WatchLease.Refusal) -> WatchLease {
        try WatchLease(home: home, account: account)
    }

    /// Where `watch` resumes for `account` on one of its listings (`stream`), if it ran before.
    public func watchCursor(account: Address, stream: String) async throws(StoreError) -> WatchCursor? {
        let rows = try await read { db in
            try db.query(
                "SELECT height, skip FROM watch_cursors WHERE account = ?1 AND stream = ?2",
                [.text(account.description), .text(stream)])
        }
        guard let row = rows.first, let height = row.integer(0), let skip = row.integer(1), height >= 0, skip >= 0
        else { return nil }
        return WatchCursor(height: height, skip: Int(clamping: skip))
    }

    /// Merges the log into its main file: its commits are not synced and its WAL is kept
    /// between processes, so without this a watch's cursors and what it showed live only in
    /// the WAL, and a backup or cleanup that loses the WAL loses them. A watch calls it on a
    /// schedule and as it ends.
    public func checkpoint() async { await database.checkpoint() }

    /// Keeps `cursor` as where `watch` resumes for `account` on `stream`.
    public func setWatchCursor(_ cursor: WatchCursor, account: Address, stream: String) async throws(StoreError) {
        try await write { db in try Self.storeCursor(cursor, account: account, stream: stream, db) }
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

    private static func shown(among transactions: [WatchedTransaction], account: String, _ db: SQLiteConnection) throws
        -> Set<TransactionID>
    {
        guard let low = transactions.lazy.map(\.height).min(), let high = transactions.lazy.map(\.height).max() else {
            return []
        }
        var found = Set<TransactionID>()
        for values in ShownAmong.bindings(account: account, transactions.map(\.id)) {
            for row in try db.query(ShownAmong.sql, values) {
                if let id = row.integer(0) { found.insert(TransactionID(number: UInt64(bitPattern: id))) }
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

    /// Records the transactions of a page `watch` is about to hand over that were not shown
    /// before (as `shown(among:)` tells), read from `from`, with the cursor past it (`to`), in
    /// one transaction: a crash leaves either the page unrecorded (it is read again) or
    /// recorded whole, and nothing can be shown between the check and the record. The page's
    /// journal is written first; tell the returned page each notification handed over, in
    /// order, so that a process killed in the middle loses none of them (`settleWatched` at
    /// the next start).
    public func recordWatched(
        _ transactions: [WatchedTransaction], account: Address, from: WatchCursor, to cursor: WatchCursor,
        stream: String
    ) async throws(StoreError) -> WatchedPage {
        let journal = WatchJournal(home: home, account: account, stream: stream)
        let text = account.description
        let (shownBefore, fresh, delivery) = try await write {
            db -> (Set<TransactionID>, [TransactionID], WatchJournal.Delivery?) in
            let shownBefore = try Self.shown(among: transactions, account: text, db)  // no statement for none
            let fresh = shownBefore.isEmpty ? transactions : transactions.filter { !shownBefore.contains($0.id) }
            // A listing read again to no avail (each poll's last blocks) writes nothing.
            if fresh.isEmpty && cursor == from { return (shownBefore, [], nil) }
            let ids = fresh.map(\.id)
            let delivery = try journal.start(from: from, ids: ids)
            // At the page's start at least, where `forgetWatched` looks: a node listing a block
            // below it costs at worst a notification shown twice, never one lost.
            let rows = fresh.map { WatchedTransaction(id: $0.id, height: max($0.height, from.height)) }
            try WatchedPages.insert(rows, account: text, db)
            try Self.storeCursor(cursor, account: account, stream: stream, db)
            return (shownBefore, ids, delivery)
        }
        return WatchedPage(
            log: self, journal: journal, delivery: delivery, ids: fresh, shownBefore: shownBefore, from: from,
            account: account, stream: stream)
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

    /// Records notifications a node's socket brought, about to be handed over: in `shown`, by
    /// id and with no block, so the listing that later finds them in a block skips them; with a
    /// journal as `recordWatched` keeps one, so a process killed in the middle loses none of
    /// them (`settleWatched` of `stream` at the next start).
    public func recordPooled(_ ids: [TransactionID], account: Address, at unixMillis: Int64, stream: String)
        async throws(StoreError) -> WatchedPage
    {
        let start = WatchCursor(height: 0)
        let journal = WatchJournal(home: home, account: account, stream: stream)
        let delivery = try journal.start(from: start, ids: ids)
        let text = account.description
        try await write { db in
            for id in ids {
                try db.query(
                    "INSERT INTO shown (account, id, shown_at, pushed, height) VALUES (?1, ?2, ?3, 0, NULL) ON CONFLICT DO NOTHING",
                    [.text(text), .integer(Int64(bitPattern: id.number)), .integer(unixMillis)])
            }
        }
        return WatchedPage(
            log: self, journal: journal, delivery: delivery, ids: ids, from: start, account: account, stream: stream)
    }

    /// Settles what a watch of `account`'s `stream` left at its end: the notifications of a
    /// recorded page that it never handed over (it was killed in the middle) are taken out
    /// again and the cursor put back before that page, so the next read hands them over.
    /// Returns how many were taken out.
    @discardableResult
    public func settleWatched(account: Address, stream: String) async throws(StoreError) -> Int {
        let journal = WatchJournal(home: home, account: account, stream: stream)
        guard let page = journal.read() else {
            journal.clear()  // none, or damaged: it guards nothing
            return 0
        }
        let undelivered = page.undelivered
        if !undelivered.isEmpty {
            try await forgetWatched(undelivered, account: account, cursor: page.from, stream: stream)
        }
        journal.clear()
        return undelivered.count
    }

    /// Undoes `recordWatched` for the ids of a page that were not delivered, putting the cursor
    /// back where the page started.
    func forgetWatched(_ ids: [TransactionID], account: Address, cursor: WatchCursor, stream: String)
        async throws(StoreError)
    {
        let text = account.description
        try await write { db in
            try WatchedPages.remove(Set(ids), account: text, reaching: cursor.height, db)
            for id in ids {
                // A page an older `watch` recorded there, settled after an upgrade.
                try db.query(
                    "DELETE FROM shown WHERE account = ?1 AND id = ?2 AND pushed = 0",
                    [.text(text), .integer(Int64(bitPattern: id.number))])
            }
            try Self.storeCursor(cursor, account: account, stream: stream, db)
        }
    }

    private static func storeCursor(_ cursor: WatchCursor, account: Address, stream: String, _ db: SQLiteConnection)
        throws
    {
        try db.query(
            "INSERT OR REPLACE INTO watch_cursors (account, stream, height, skip) VALUES (?1, ?2, ?3, ?4)",
            [
                .text(account.description), .text(stream), .integer(max(0, cursor.height)),
                .integer(Int64(max(0, cursor.skip))),
            ])
    }

    @discardableResult
    private func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(StoreError)
        -> T
    {
        do { return try await database.write(body) } catch {
            throw StoreError(error, store: .notificationLog, path: database.path)
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(StoreError)
        -> T
    {
        do { return try await database.read(body) } catch {
            throw StoreError(error, store: .notificationLog, path: database.path)
        }
    }

    static let migrations = [
        Migration(
            version: 1,
            sql: """
                -- Transaction ids as their 64 bits; times Unix milliseconds.
                CREATE TABLE shown (
                    account TEXT NOT NULL,
                    id INTEGER NOT NULL,
                    shown_at INTEGER NOT NULL,
                    pushed INTEGER NOT NULL CHECK (pushed IN (0, 1)),
                    height INTEGER,
                    PRIMARY KEY (account, id)
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX shown_by_time ON shown (account, pushed, shown_at);

                CREATE TABLE public_keys (
                    address TEXT PRIMARY KEY,
                    public_key BLOB NOT NULL
                ) STRICT, WITHOUT ROWID;

                -- Where `watch` resumes: blocks at or above `height`, after the first `skip`
                -- transactions a node lists there (oldest first).
                CREATE TABLE watch_cursors (
                    account TEXT NOT NULL,
                    stream TEXT NOT NULL,
                    height INTEGER NOT NULL CHECK (height >= 0),
                    skip INTEGER NOT NULL CHECK (skip >= 0),
                    PRIMARY KEY (account, stream)
                ) STRICT, WITHOUT ROWID;
                """),
        Migration(
            version: 2,
            sql: """
                -- What `watch` handed over, by block. Its pages come in chain order, so each is
                -- added at the end of this table; in `shown`, by id, a page's hundred went to a
                -- hundred random places, and each commit wrote a hundred database pages.
                CREATE TABLE watched (
                    account TEXT NOT NULL,
                    height INTEGER NOT NULL,
                    id INTEGER NOT NULL,
                    PRIMARY KEY (account, height, id)
                ) STRICT, WITHOUT ROWID;
                """),
        Migration(
            version: 3,
            sql: """
                -- Chats a desktop notification's "Mute 1 hour" muted, until a Unix millisecond.
                CREATE TABLE muted_chats (
                    account TEXT NOT NULL,
                    partner TEXT NOT NULL,
                    until INTEGER NOT NULL,
                    PRIMARY KEY (account, partner)
                ) STRICT, WITHOUT ROWID;

                -- Notifications shown everywhere but on the desktop, whose notification service
                -- was away: the next watch shows them there.
                CREATE TABLE undelivered (
                    account TEXT NOT NULL,
                    id INTEGER NOT NULL,
                    at INTEGER NOT NULL,
                    PRIMARY KEY (account, id)
                ) STRICT, WITHOUT ROWID;
                """),
        Migration(version: 4, sql: WatchedPages.schema, then: WatchedPages.migrateRows),
    ]
}

/// A page `watch` recorded and is handing over, notification after notification, in order.
public final class WatchedPage {
    private let log: NotificationLog
    private let journal: WatchJournal
    private let delivery: WatchJournal.Delivery?
    private let ids: [TransactionID]
    /// The page's transactions that were shown before, and are not to be handed over.
    public let shownBefore: Set<TransactionID>
    private let from: WatchCursor
    private let account: Address
    private let stream: String
    private var handedOver = 0

    fileprivate init(
        log: NotificationLog, journal: WatchJournal, delivery: WatchJournal.Delivery?, ids: [TransactionID],
        shownBefore: Set<TransactionID> = [],
        from: WatchCursor, account: Address, stream: String
    ) {
        (self.log, self.journal, self.delivery, self.ids, self.from, self.account, self.stream) = (
            log, journal, delivery, ids, from, account, stream
        )
        self.shownBefore = shownBefore
    }

    /// The next of the page's notifications was handed over.
    public func handedOverNext() {
        guard handedOver < ids.count else { return }
        delivery?.recordNext()
        handedOver += 1
    }

    /// The watch stops before the page's end: the notifications not handed over are taken out
    /// of the log again and the cursor put back before the page.
    public func forgetTheRest() async throws(StoreError) {
        if handedOver < ids.count {
            try await log.forgetWatched(Array(ids[handedOver...]), account: account, cursor: from, stream: stream)
        }
        journal.clear()
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

/// A transaction `watch` hands over: its id, and the block it is in.
public struct WatchedTransaction: Sendable, Hashable {
    /// The transaction's id.
    public var id: TransactionID
    /// Its block's height.
    public var height: Int64

    /// The transaction `id` in block `height`.
    public init(id: TransactionID, height: Int64) {
        self.id = id
        self.height = height
    }
}

/// Where `watch` resumes one listing: blocks at or above `height`, after skipping the first
/// `skip` transactions a node lists there, oldest first.
public struct WatchCursor: Sendable, Hashable {
    /// The lowest block height still to read.
    public var height: Int64
    /// Transactions at `height` already read, in the node's order.
    public var skip: Int

    /// A cursor at `height`, `skip` transactions in.
    public init(height: Int64, skip: Int = 0) {
        self.height = height
        self.skip = skip
    }
}
