import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantStore
import Foundation
import Testing

@testable import AdamantFetch

/// `Notifications`, the library's way to follow accounts: a `for try await` loop over a real
/// devnet, stopped and started again on the same home.
@Suite("Notifications", .timeLimit(.minutes(1)))
struct NotificationsTests {
    static func notifications(_ network: FetchNetwork, home: String, policy: NotificationPolicy = NotificationPolicy())
        throws -> Notifications
    {
        var configuration = Watcher.Configuration()
        (configuration.interval, configuration.liveInterval, configuration.live) = (
            .milliseconds(100), .milliseconds(100), false
        )
        let watcher = Watcher(
            fetcher: network.fetcher(), log: try NotificationLog(home: home), configuration: configuration)
        return Notifications(WatchGroup([watcher]), from: .height(1), policy: policy)
    }

    static func home() throws -> String {
        let path = NSTemporaryDirectory() + "adm-notifications-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return path
    }

    static func untilTheLeaseIsFree(_ home: String, _ account: Address) async throws {
        let log = try NotificationLog(home: home)
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? log.leaseWatch(account: account)) == nil {
            guard ContinuousClock.now < deadline else { throw TestFailure("the first loop's watch never ended") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Each message once across two loops: the one the first loop was given last, and left
    /// before finishing, comes again; none before it does.
    @Test func eachComesOnceAcrossLoopsAndTheOneUnfinishedComesAgain() async throws {
        let network = try await FetchNetwork()
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        for text in ["one", "two", "three"] { try await network.send(text, from: network.friend, to: network.me) }
        network.devnet.mine()

        var first: [String] = []
        for try await notification in try Self.notifications(network, home: home) {
            first.append(notification.result.text ?? "?")
            if first.count == 2 { break }
        }
        // Leaving the loop stops its watch, which lets its lease go as it ends.
        try await Self.untilTheLeaseIsFree(home, network.me.address)
        var second: [String] = []
        for try await notification in try Self.notifications(network, home: home) {
            second.append(notification.result.text ?? "?")
            if second.count == 2 { break }
        }
        #expect(first == ["one", "two"])
        #expect(second == ["two", "three"], "two was left unfinished, and comes again; one does not")
    }

    /// The policy governs the sequence as it does a watch's lines: a muted partner's messages
    /// are not in it, and `preview: .none` takes the text out.
    @Test func thePolicyDecidesWhatTheLoopGets() async throws {
        let network = try await FetchNetwork()
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let stranger = KeyPair(passphrase: Passphrase(unvalidated: "a stranger \(UUID())"))
        _ = try network.devnet.fund(stranger.address, amount: ADMAmount(units: 100 * ADMAmount.unitsPerADM))
        try await network.send("from a friend", from: network.friend, to: network.me)
        try await network.send("from a stranger", from: stranger, to: network.me)
        network.devnet.mine()
        var policy = NotificationPolicy()
        policy.muted[network.friend.address] = .some(nil)
        policy.preview = .none
        for try await notification in try Self.notifications(network, home: home, policy: policy) {
            #expect(notification.result.thread == stranger.address)
            #expect(notification.result.text == nil && notification.result.notification.body == "New message")
            break
        }
    }

    /// Cancelling the task that runs the loop ends a `next()` that waits, with the end.
    @Test func cancellingTheLoopsTaskEndsIt() async throws {
        let network = try await FetchNetwork()
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let notifications = try Self.notifications(network, home: home)
        let loop = Task { () throws(WatchGroup.Failure) -> Int in
            var count = 0
            for try await _ in notifications { count += 1 }
            return count
        }
        // The watch has started once its lease is taken; the loop then waits for a message.
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? NotificationLog(home: home).leaseWatch(account: network.me.address)) != nil {
            guard ContinuousClock.now < deadline else { throw TestFailure("the watch never started") }
            try await Task.sleep(for: .milliseconds(10))
        }
        loop.cancel()
        #expect(try await loop.value == 0)
        try await Self.untilTheLeaseIsFree(home, network.me.address)
    }

    /// A watch that cannot start ends the loop with its failure.
    @Test func aWatchThatCannotStartEndsTheLoopWithItsFailure() async throws {
        let network = try await FetchNetwork()
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let held = try NotificationLog(home: home).leaseWatch(account: network.me.address)
        defer { withExtendedLifetime(held) {} }
        await #expect {
            for try await _ in try Self.notifications(network, home: home) {}
        } throws: { error in
            guard let failure = error as? WatchGroup.Failure, case .leaseRefused = failure.error else { return false }
            return failure.account == network.me.address
        }
    }
}
