internal import CSQLite
import Dispatch
import Synchronization

/// The single owner of one SQLite connection (GRDB's rule: one serial owner per connection).
/// Every use runs on its private serial queue, off the cooperative pool, so a statement that
/// waits on another process's lock never stalls other tasks.
package final class SerialDatabase: @unchecked Sendable {
    // Touched only on `queue` once the init has returned: that is what makes the unchecked
    // Sendable sound.
    fileprivate let connection: SQLiteConnection
    fileprivate let queue = DispatchQueue(label: "adm-push.sqlite")
    /// The file, for errors that must name it.
    package let path: String
    /// Whether this process wrote to it, so it is checkpointed as the process ends.
    private let hasWritten = Atomic(false)
    /// Durable stores are left whole in their main file; the others (the notification log,
    /// whose commits are not synced either) are not worth two syncs per command.
    private let checkpointsAtRest: Bool

    /// Opens and migrates `path`. A file that is not a database, or one from a newer schema, is
    /// refused before anything is written to it; one where `checked` tables are damaged, before
    /// anything is read from them. `durable`: see `SQLiteConnection.enableWAL`.
    init(path: String, create: Bool, migrations: [Migration], checked: [String] = [], durable: Bool = true) throws {
        self.path = path
        checkpointsAtRest = durable
        connection = try SQLiteConnection(path: path, create: create, configure: false)
        try connection.refuseNewer(than: migrations)
        try connection.enableWAL(durable: durable)
        try connection.migrate(migrations)
        try connection.checkIntegrity(of: checked)
    }

    // Closed once no work is queued (each holds it): a store written to is left checkpointed.
    deinit {
        if hasWritten.load(ordering: .relaxed) { connection.checkpointPassively() }
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction, committed (and synced) before this returns.
    package func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        if checkpointsAtRest, !hasWritten.exchange(true, ordering: .relaxed) { WrittenStores.add(self) }
        return try await run { connection in try connection.writeTransaction { try body(connection) } }
    }

    /// `body` on one consistent snapshot.
    package func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await run { connection in try connection.readTransaction { try body(connection) } }
    }

    /// Copies the WAL into the main file and empties it, after the work already queued: the
    /// main file alone is then whole. Best effort, as `checkpointTruncating` is.
    package func checkpoint() async {
        _ = try? await run { connection in connection.checkpointTruncating() }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self.connection) }) }
        }
    }
}

/// The durable stores this process wrote to. A command checkpoints those still open as it ends
/// (the others were as they closed): between commands every commit is then in the main files, so a
/// backup of the `.sqlite` files alone is whole, and a WAL found holding commits at the next
/// open means a process died mid-command.
package enum WrittenStores {
    private struct Entry: Sendable { weak var database: SerialDatabase? }
    private static let entries = Mutex<[Entry]>([])

    static func add(_ database: SerialDatabase) { entries.withLock { $0.append(Entry(database: database)) } }

    /// Checkpoints every store written to that is still open, on its own queue, after the
    /// work already queued there.
    package static func checkpoint() {
        for entry in entries.withLock({ $0 }) {
            guard let database = entry.database else { continue }
            database.queue.sync { database.connection.checkpointPassively() }
        }
    }
}

extension SQLiteConnection {
    /// Throws `SQLITE_CORRUPT` with SQLite's first complaint unless each of `tables`, with its
    /// indexes, is whole: SQLite reads through a damaged index without a word, so two queries
    /// planned through different indexes can see different rows.
    func checkIntegrity(of tables: [String]) throws(SQLiteError) {
        for table in tables {
            let verdict = try query("PRAGMA integrity_check(\(table))")  // a pragma takes no bound parameter
            guard verdict != [[.text("ok")]] else { continue }
            guard case .text(let complaint)? = verdict.first?.first else {
                throw SQLiteError(extendedCode: SQLITE_CORRUPT, message: "\(table) is damaged")
            }
            throw SQLiteError(extendedCode: SQLITE_CORRUPT, message: complaint)
        }
    }
}
