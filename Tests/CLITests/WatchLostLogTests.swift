import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantStore
import Foundation
import Testing

/// The home's files as backups, restores and cleanups leave them: a log whose WAL is gone, a
/// log moved aside. The watch never starts at the tip in silence when a watch ran here before.
@Suite("adm-fetch watch with a lost log", .timeLimit(.minutes(4)))
struct WatchLostLogTests {
    /// A clean exit leaves the log whole in its main file: without its WAL and shared-memory
    /// files, the next watch shows what came meanwhile, and nothing twice.
    @Test func aWALLostAfterACleanExitLosesNothing() async throws {
        let network = try await FetchDevnet()
        let log = try await Self.watchedOnce(network)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: log + suffix) }
        var sent: [String] = []
        for text in ["one", "two", "three"] {
            sent.append(try #require(try await network.send(text, from: network.friend, to: network.me).id).description)
        }

        let second = try await WatchProcess(network, name: "second")
        try await second.until("the three are shown") { second.ids.count >= 3 }
        #expect(try await second.stop().status == 0)
        #expect(second.ids == sent, "\(second.stderr)")
        #expect(!second.stderr.contains("no cursor"), "nothing to recover: \(second.stderr)")
    }

    /// A log moved aside (as the damaged-log message advises) or deleted: the new one has no
    /// cursor, but the lease the last watch left says where it was. The watch says so, names
    /// --from-height, and shows what came meanwhile.
    @Test func aLogMovedAsideResumesFromTheBlockTheLeaseKept() async throws {
        let network = try await FetchDevnet()
        let log = try await Self.watchedOnce(network)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: log + suffix) {
            try FileManager.default.moveItem(atPath: log + suffix, toPath: log + suffix + ".aside")
        }
        var sent: [String] = []
        for text in ["one", "two"] {
            sent.append(try #require(try await network.send(text, from: network.friend, to: network.me).id).description)
        }
        let expected = Set(sent)

        let second = try await WatchProcess(network, name: "second")
        try await second.until("the two are shown") { expected.isSubset(of: second.ids) }
        #expect(try await second.stop().status == 0)
        #expect(second.stderr.contains("has no cursor for \(network.me.address)"), "\(second.stderr)")
        #expect(
            second.stderr.contains("kept in its lease") && second.stderr.contains("--from-height"), "\(second.stderr)")
    }

    /// A lease that keeps no block (an older watch's) beside a log with no cursor: the watch
    /// resumes where the chain proves the account was used, its last own transaction, and
    /// shows what came after it.
    @Test func withNoBlockKeptTheAccountsLastOwnTransactionIsTheStart() async throws {
        let network = try await FetchDevnet()
        let home = network.outbox.home + "/home"
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(
            FileManager.default.createFile(
                atPath: home + "/watch-\(network.me.address).lock", contents: Data("process 1 on elsewhere\n".utf8),
                attributes: [.posixPermissions: 0o600]))
        _ = try await network.send("before my reply", from: network.friend, to: network.me)
        let reply = try await network.send("my reply", from: network.me, to: network.friend)
        let after = try #require(try await network.send("after my reply", from: network.friend, to: network.me).id)
            .description
        for _ in 0..<3 { _ = network.devnet.mine() }

        let watch = try await WatchProcess(network, name: "recovered")
        try await watch.until("what came after the reply is shown") { watch.ids.contains(after) }
        #expect(try await watch.stop().status == 0)
        let replyHeight = try #require(try await network.client.transaction(try reply.computedID())?.height)
        #expect(
            watch.stderr.contains(
                "resuming from block \(replyHeight), the block of the account's last own transaction"),
            "\(watch.stderr)")
    }

    /// A watch that showed one message and stopped cleanly; the path of its log.
    static func watchedOnce(_ network: FetchDevnet) async throws -> String {
        let first = try await WatchProcess(network, name: "first")
        let before = try #require(try await network.send("before", from: network.friend, to: network.me).id).description
        try await first.until("it is shown") { first.ids == [before] }
        #expect(try await first.stop().status == 0, "\(first.stderr)")
        return network.outbox.home + "/home/" + NotificationLog.fileName
    }

    /// A home where no watch of the account ran starts at the tip, as ever, without a word
    /// about recovery.
    @Test func aFirstWatchStartsAtTheTipQuietly() async throws {
        let network = try await FetchDevnet()
        let watch = try await WatchProcess(network, name: "first")
        let sent = try #require(try await network.send("news", from: network.friend, to: network.me).id).description
        try await watch.until("it is shown") { watch.ids.contains(sent) }
        #expect(try await watch.stop().status == 0)
        #expect(!watch.stderr.contains("no cursor"), "\(watch.stderr)")
    }
}
