import AdamantCore
import Foundation
import Testing

@testable import AdamantPush

/// Stores damaged on disk, as the outbox-store fuzz target found them (Fuzz/Crashes/outbox-store/).
@Suite("Damaged stores")
struct DamagedStoreTests {
    /// Fuzz/Crashes/outbox-store/log-damage-blamed-on-the-outbox: damage met while reading the
    /// notification log was reported as a damaged outbox.sqlite, and its advice (move that aside
    /// and repair) would lose the outbox's unsent intents and leave the log as it was.
    @Test func damageInTheNotificationLogNamesTheLog() async throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o700)
        let account = KeyPair(passphrase: Passphrase(unvalidated: "damaged log")).address
        try damageRootPage(of: "shown", in: home.file(NotificationLog.fileName), migrations: NotificationLog.migrations) { connection in
            try connection.query("INSERT INTO shown (account, id, shown_at, pushed) VALUES (?1, 11, 1, 1)", [.text(account.description)])
        }
        let log = try NotificationLog(home: home.path)
        let error = await #expect(throws: OutboxError.self) { try await log.pushes(to: account) }
        guard case .damagedStore(let path, _)? = error else { return }
        #expect(path.hasSuffix(NotificationLog.fileName), "\(path)")
        let advice = try #require(error?.description)
        #expect(!advice.contains(OutboxStore.fileName) && !advice.contains("repair"), "\(advice)")
    }

    /// Makes a store with `migrations` and `fill`, folds its WAL in, then turns the first page of
    /// `table` into no kind of b-tree page: the file opens, and reading the table meets the damage.
    private func damageRootPage(of table: String, in path: String, migrations: [Migration], fill: (SQLiteConnection) throws -> Void) throws {
        var (root, pageSize): (Int64, Int64) = (0, 0)
        do {
            let connection = try SQLiteConnection(path: path, create: true)
            try connection.migrate(migrations)
            try fill(connection)
            try connection.query("PRAGMA wal_checkpoint(TRUNCATE)")
            root = try #require(try connection.query("SELECT rootpage FROM sqlite_master WHERE name = ?1", [.text(table)]).first?.integer(0))
            pageSize = try #require(try connection.query("PRAGMA page_size").first?.integer(0))
        }
        let url = URL(fileURLWithPath: path)
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[Int((root - 1) * pageSize)] ^= 0x01
        try Data(bytes).write(to: url)
    }
}
