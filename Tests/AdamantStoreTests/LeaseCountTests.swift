import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// The count of a page handed over, kept in the watch's lease by the page's serial: what the
/// next watch settles by it, and what it does with a count that is not the page's.
@Suite("The count in the lease")
struct LeaseCountTests {
    let account = KeyPair(passphrase: Passphrase(unvalidated: "lease count")).address
    let ids = (1...4).map { TransactionID(number: 7000 + $0) }
    var listed: [WatchedTransaction] { ids.map { WatchedTransaction(id: $0, height: 50) } }
    let from = WatchCursor(height: 50)
    let past = WatchCursor(height: 51)

    func leaseFile(_ home: TemporaryDirectory) -> String { home.file("watch-\(account).lock") }

    /// Killed after the page's commit and before its first hand-over: the lease still counts
    /// the page before, whose serial is not this one's, so all of this page comes again.
    @Test func aCountOfThePageBeforeSettlesNoneOfThisOne() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let log = try NotificationLog(home: home.path)
            let lease = try log.leaseWatch(account: account)
            let before = try await log.recordWatched(
                [WatchedTransaction(id: TransactionID(number: 6999), height: 49)], account: account,
                from: WatchCursor(height: 49), to: from, stream: .chats, lease: lease)
            before.handedOverNext()
            _ = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
        }
        #expect(try String(contentsOfFile: leaseFile(home), encoding: .utf8).contains(" 1\n"), "the page before's")
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == ids.count)
        #expect(try await log.watchCursor(account: account, stream: .chats) == from)
    }

    /// Settled, the earlier watch's count leaves the lease's file; the holder and block stay.
    @Test func aSettledCountLeavesTheFile() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let log = try NotificationLog(home: home.path)
            let lease = try log.leaseWatch(account: account)
            lease.keep(height: 40)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            page.handedOverNext()
        }
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(
            try String(contentsOfFile: leaseFile(home), encoding: .utf8).contains("\npage chats "), "kept until settled"
        )
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 3)
        let lines = try String(contentsOfFile: leaseFile(home), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("process ") && lines[1] == "block 40", "\(lines)")
    }

    /// A process ended between a shorter write and the cut leaves the longer text's tail: its
    /// lines are older, and the first count of a page is the one read.
    @Test func linesPastTheLastWriteAreOlder() async throws {
        let home = try TemporaryDirectory.privateHome()
        let serial: Int64
        do {
            let log = try NotificationLog(home: home.path)
            let lease = try log.leaseWatch(account: account)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            page.handedOverNext()
            let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false)
            serial = try #require(try HandingOver.page(account: account.description, stream: .chats, connection))
                .serial
        }
        let text = try String(contentsOfFile: leaseFile(home), encoding: .utf8)
        try (text + "page chats \(serial) 3\n").write(toFile: leaseFile(home), atomically: false, encoding: .utf8)
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(
            try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 3,
            "by the count of 1")
    }

    /// A row that counted its hand-overs itself (a watch of schema 5) is settled by its own count.
    @Test func aRowsOwnCountIsHonoured() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let log = try NotificationLog(home: home.path)
            _ = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats,
                lease: try log.leaseWatch(account: account))
        }
        try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false).query(
            "UPDATE handing_over SET handed_over = 3, serial = 0")
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 1)
        #expect(try await log.shown(among: listed, account: account) == Set(ids[..<3]))
    }
}
