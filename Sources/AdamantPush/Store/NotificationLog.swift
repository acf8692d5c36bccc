public import AdamantCore
import Foundation

/// What `adm-fetch` keeps in the home directory beside the outbox: the transactions it has
/// shown (to mark a push delivered twice as a duplicate, and to know which came by push), and
/// partners' public keys (an address's key never changes). Its own file, so a fetch never
/// waits on an outbox write.
public final class NotificationLog: Sendable {
    public static let fileName = "notifications.sqlite"
    private let database: SerialDatabase

    /// Opens (creating if needed) the log in `home`, made 0700 with a 0600 file.
    public init(home: String) throws(OutboxError) {
        try HomeDirectory.prepare(home)
        let path = home + "/" + Self.fileName
        do {
            database = try HomeDirectory.creatingPrivately(path) { try SerialDatabase(path: path, create: true, migrations: Self.migrations) }
        } catch let error as MigrationError {
            guard case .newerSchema(let found, let supported) = error else { throw .store("\(error)") }
            throw .newerStore(path: path, found: found, supported: supported)
        } catch let error as SQLiteError where error.isCorrupt {
            throw .damagedStore(path: path, detail: error.message)
        } catch {
            throw .store("\(error)")
        }
    }

    /// Records that `id` was shown to `account` (`pushed` when a push brought it) and says
    /// whether it had been shown before. A later pushed showing marks an earlier one pushed.
    /// `height`, the transaction's block, when it was in one.
    public func recordShown(
        _ id: TransactionID, account: Address, pushed: Bool, at unixMillis: Int64, height: Int64? = nil
    ) async throws(OutboxError) -> Bool {
        let (account, number) = (account.description, Int64(bitPattern: id.number))
        return try await write { db in
            let before = try db.query("SELECT 1 FROM shown WHERE account = ?1 AND id = ?2", [.text(account), .integer(number)]).isEmpty == false
            try db.query(
                """
                INSERT INTO shown (account, id, shown_at, pushed, height) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (account, id) DO UPDATE SET pushed = max(pushed, excluded.pushed), height = coalesce(height, excluded.height)
                """,
                [.text(account), .integer(number), .integer(unixMillis), .integer(pushed ? 1 : 0), height.map(SQLiteValue.integer) ?? .null])
            return before
        }
    }

    /// A transaction a push brought: when it was shown, and its block.
    public struct Push: Sendable, Hashable {
        public var id: TransactionID
        public var shownAt: Int64
        public var height: Int64?
    }

    /// Every transaction a push brought to `account`, oldest first.
    public func pushes(to account: Address) async throws(OutboxError) -> [Push] {
        let rows = try await read { db in
            try db.query("SELECT id, shown_at, height FROM shown WHERE account = ?1 AND pushed = 1 ORDER BY shown_at",
                         [.text(account.description)])
        }
        return rows.compactMap { row in
            guard let id = row.integer(0), let shownAt = row.integer(1) else { return nil }
            return Push(id: TransactionID(number: UInt64(bitPattern: id)), shownAt: shownAt, height: row.integer(2))
        }
    }

    /// Whether `id` was shown to `account` because a push brought it.
    public func wasPushed(_ id: TransactionID, to account: Address) async throws(OutboxError) -> Bool {
        let rows = try await read { db in
            try db.query("SELECT 1 FROM shown WHERE account = ?1 AND id = ?2 AND pushed = 1", [.text(account.description), .integer(Int64(bitPattern: id.number))])
        }
        return !rows.isEmpty
    }

    public func publicKey(of address: Address) async throws(OutboxError) -> PublicKey? {
        let rows = try await read { db in try db.query("SELECT public_key FROM public_keys WHERE address = ?1", [.text(address.description)]) }
        guard case .blob(let bytes)? = rows.first?.first, let key = try? PublicKey(bytes: bytes), key.address == address else { return nil }
        return key
    }

    /// Keeps `key` for `address` if it is that address's key (anything else is refused).
    public func remember(_ key: PublicKey, of address: Address) async throws(OutboxError) {
        guard key.address == address else { return }
        try await write { db in
            try db.query("INSERT OR REPLACE INTO public_keys (address, public_key) VALUES (?1, ?2)", [.text(address.description), .blob(key.bytes)])
        }
    }

    @discardableResult
    private func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(OutboxError) -> T {
        do { return try await database.write(body) } catch { throw OutboxError(storeFailure: error) }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(OutboxError) -> T {
        do { return try await database.read(body) } catch { throw OutboxError(storeFailure: error) }
    }

    static let migrations = [
        Migration(version: 1, sql: """
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
            """),
    ]
}
