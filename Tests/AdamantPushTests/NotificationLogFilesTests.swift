import AdamantCore
import Foundation
import Testing

@testable import AdamantPush

/// `NotificationLog.opening(home:)`, which `adm-fetch` uses so that the log's SQLite open runs
/// while the transaction is found: the home is checked at once, the file's failures come at
/// its first use, and its files are as private as the synchronous open's.
@Suite("Opening the notification log in the background")
struct NotificationLogOpeningTests {
    private let account = KeyPair(passphrase: Passphrase(unvalidated: "opening log")).address

    @Test func itRecordsAndFindsWhatTheSynchronousOpenFinds() async throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o700)
        let log = try NotificationLog.opening(home: home.path)
        #expect(try await log.recordShown(TransactionID(number: 7), account: account, pushed: true, at: 1) == false)
        #expect(try await log.recordShown(TransactionID(number: 7), account: account, pushed: true, at: 2) == true)
        let reopened = try NotificationLog(home: home.path)
        #expect(try await reopened.pushes(to: account).map(\.id) == [TransactionID(number: 7)])
    }

    /// The home's rules hold before anything runs in the background.
    @Test func aHomeOthersCanEnterIsRefusedAtOnce() throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o755)
        let error = #expect(throws: OutboxError.self) { _ = try NotificationLog.opening(home: home.path) }
        guard case .home? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(!FileManager.default.fileExists(atPath: home.file(NotificationLog.fileName)))
    }

    /// A log from a newer schema opens without a word and refuses every use, untouched.
    @Test func aNewerLogIsRefusedAtItsFirstUse() async throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o700)
        let newer = (NotificationLog.migrations.last?.version ?? 0) + 1
        do {
            let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: true, configure: false)
            try connection.execute("PRAGMA user_version = \(newer)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: home.file(NotificationLog.fileName)))
        let log = try NotificationLog.opening(home: home.path)
        for _ in 0..<2 {
            let error = await #expect(throws: OutboxError.self) {
                try await log.recordShown(TransactionID(number: 1), account: account, pushed: true, at: 1)
            }
            guard case .newerStore(_, let found, _)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(found == newer)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.file(NotificationLog.fileName))) == before)
    }

    /// The database, its WAL and its shm are 0600 whatever the umask lets through, and opening
    /// leaves the process's umask as it was (a background open that set it would race with
    /// every file another thread creates). Linux only: the umask is read from /proc.
    @Test(arguments: [false, true]) func itsFilesArePrivateAndTheUmaskIsLeftAlone(inBackground: Bool) async throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o700)
        let umaskBefore = try currentUmask()
        let log = inBackground ? try NotificationLog.opening(home: home.path) : try NotificationLog(home: home.path)
        _ = try await log.recordShown(TransactionID(number: 3), account: account, pushed: false, at: 1)
        #expect(try currentUmask() == umaskBefore)
        let files = try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix(NotificationLog.fileName) }
        #expect(Set(files) == [NotificationLog.fileName, NotificationLog.fileName + "-wal", NotificationLog.fileName + "-shm"])
        for file in files {
            var info = stat()
            #expect(stat(home.file(file), &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file) is \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    /// The umask from /proc (reading it with umask(2) would set it, under other tests' feet).
    private func currentUmask() throws -> String {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        return try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") }).description
    }
}
