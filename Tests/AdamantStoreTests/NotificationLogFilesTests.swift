import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// What opening the notification log leaves on disk: files only the user can read, nothing in
/// a home others can enter, a log from a newer schema untouched.
@Suite("The notification log's files")
struct NotificationLogFilesTests {
    private let account = KeyPair(passphrase: Passphrase(unvalidated: "opening log")).address

    @Test func aHomeOthersCanEnterIsRefusedWithNothingCreated() throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o755)
        let error = #expect(throws: StoreError.self) { _ = try NotificationLog(home: home.path) }
        guard case .home? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: home.file(NotificationLog.fileName)))
    }

    /// A log from a newer schema is refused with both versions named, and left byte for byte.
    @Test func aNewerLogIsRefusedUntouched() throws {
        let home = try TemporaryDirectory.privateHome()
        let newer = (NotificationLog.migrations.last?.version ?? 0) + 1
        do {
            let connection = try SQLiteConnection(
                path: home.file(NotificationLog.fileName), create: true, configure: false)
            try connection.execute("PRAGMA user_version = \(newer)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: home.file(NotificationLog.fileName)))
        let error = #expect(throws: StoreError.self) { _ = try NotificationLog(home: home.path) }
        guard case .newer(.notificationLog, _, let found, let supported)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(found == newer && supported == newer - 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.file(NotificationLog.fileName))) == before)
    }

    /// The database, its WAL and its shm are 0600 whatever the umask lets through, and opening
    /// leaves the process's umask as it was (setting it would race with every file another
    /// thread creates). Linux only: the umask is read from /proc.
    @Test func itsFilesArePrivateAndTheUmaskIsLeftAlone() async throws {
        let home = try TemporaryDirectory.privateHome()
        let umaskBefore = try currentUmask()
        let log = try NotificationLog(home: home.path)
        _ = try await log.recordShown(TransactionID(number: 3), account: account, pushed: false, at: 1)
        #expect(try currentUmask() == umaskBefore)
        let files = try FileManager.default.contentsOfDirectory(atPath: home.path).filter {
            $0.hasPrefix(NotificationLog.fileName)
        }
        #expect(
            Set(files) == [
                NotificationLog.fileName, NotificationLog.fileName + "-wal", NotificationLog.fileName + "-shm",
            ])
        for file in files {
            var info = stat()
            #expect(
                stat(home.file(file), &info) == 0 && info.st_mode & 0o777 == 0o600,
                "\(file) is \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    /// The umask from /proc (reading it with umask(2) would set it, under other tests' feet).
    private func currentUmask() throws -> String {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        return try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") }).description
    }
}
