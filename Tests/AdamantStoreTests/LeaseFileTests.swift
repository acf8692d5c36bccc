import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// The watch's lease file says who holds the home and where a lost log resumes, nothing of
/// what was handed over: that is the log's alone.
@Suite("The lease's file")
struct LeaseFileTests {
    let account = KeyPair(passphrase: Passphrase(unvalidated: "lease file")).address
    let ids = (1...4).map { TransactionID(number: 7000 + $0) }
    var listed: [WatchedTransaction] { ids.map { WatchedTransaction(id: $0, height: 50) } }
    let from = WatchCursor(height: 50)
    let past = WatchCursor(height: 51)

    func leaseFile(_ home: TemporaryDirectory) -> String { home.file("watch-\(account).lock") }

    /// Handing a page over writes the log, never the lease's file: its holder and block stay
    /// as the watch kept them.
    @Test func itHoldsTheHolderAndTheBlockOnly() async throws {
        let home = try TemporaryDirectory.privateHome()
        let log = try NotificationLog(home: home.path)
        let lease = try log.leaseWatch(account: account)
        lease.keep(height: 40)
        let kept = try String(contentsOfFile: leaseFile(home), encoding: .utf8)
        let page = try await log.recordWatched(
            listed, account: account, from: from, to: past, stream: .chats, lease: lease)
        await page.handedOverNext()
        await page.handedOverNext()
        let lines = try String(contentsOfFile: leaseFile(home), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("process ") && lines[1] == "block 40", "\(lines)")
        #expect(try String(contentsOfFile: leaseFile(home), encoding: .utf8) == kept)
    }

    /// A file with lines it does not know (a count of a page, as a lease once kept) gives its
    /// block; the count is not read, and the page is recovered by the log's own count.
    @Test func linesItDoesNotKnowAreNotRead() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let log = try NotificationLog(home: home.path)
            let lease = try log.leaseWatch(account: account)
            lease.keep(height: 40)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            await page.handedOverNext()
        }
        let text = try String(contentsOfFile: leaseFile(home), encoding: .utf8)
        try (text + "page chats 123 3\n").write(toFile: leaseFile(home), atomically: false, encoding: .utf8)
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(lease.heldBefore && lease.keptHeight == 40)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 3)
        #expect(try await log.shown(among: listed, account: account) == [ids[0]])
    }

    /// A log whose table still has the page's serial column (schema 6) opens with its page,
    /// and the page is recovered by its count.
    @Test func aLogOfSchemaSixKeepsItsPage() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let log = try NotificationLog(home: home.path)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats,
                lease: try log.leaseWatch(account: account))
            await page.handedOverNext()
        }
        let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false)
        try connection.execute(
            "ALTER TABLE handing_over ADD COLUMN serial INTEGER NOT NULL DEFAULT 7; PRAGMA user_version = 6;")
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 3)
        #expect(try await log.watchCursor(account: account, stream: .chats) == from)
    }
}
