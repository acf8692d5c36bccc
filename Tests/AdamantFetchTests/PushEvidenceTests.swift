import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantStore
import Foundation
import Testing

@testable import AdamantPush

/// "Pushes stopped" and "pushes after a remove", told from the home's records and the chain.
@Suite("Push evidence", .timeLimit(.minutes(1)))
struct PushEvidenceTests {
    static let token = String(repeating: "e1", count: 32)

    struct Setup {
        let network: FetchNetwork
        let outbox: Outbox
        let log: NotificationLog
        let home: String
    }

    func setup() async throws -> Setup {
        let network = try await FetchNetwork { $0.ansMode = .ordered }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("adm-evidence-\(UUID())").path
        let service = try NotificationService(
            address: network.devnet.ans.address, publicKey: network.devnet.ans.publicKey)
        var configuration = Outbox.Configuration()
        configuration.pollInterval = .milliseconds(50)
        let outbox = try Outbox(
            home: home, keyPair: network.me, service: service,
            chain: NodeClient(pool: network.pool, deadline: .seconds(3)), configuration: configuration)
        let intent = try await outbox.register(token: Self.token, provider: .apns)
        _ = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        return Setup(network: network, outbox: outbox, log: try NotificationLog(home: home), home: home)
    }

    func check(_ setup: Setup, at unixMillis: Int64) -> PushEvidenceCheck {
        PushEvidenceCheck(
            account: setup.network.me.address, log: setup.log, client: NodeClient(pool: setup.network.pool),
            wallClock: ManualWallClock(unixMillis: unixMillis))
    }

    /// Records `transaction` as brought by a push at `unixMillis`, once it is in a block.
    func pushed(_ transaction: Transaction, _ setup: Setup, at unixMillis: Int64) async throws {
        setup.network.devnet.mine()
        let confirmed = try #require(
            setup.network.devnet.confirmedTransactions.first { $0.signature == transaction.signature })
        _ = try await setup.log.recordShown(
            try transaction.computedID(), account: setup.network.me.address, pushed: true, at: unixMillis,
            height: confirmed.height)
    }

    @Test func messagesOlderThanTheGraceThatCameWithoutAPushAreCounted() async throws {
        let setup = try await setup()
        let network = setup.network
        let now = SystemWallClock().unixMillis()
        let first = try await network.send("pushed", from: network.friend, to: network.me)
        network.devnet.mine()
        try await pushed(first, setup, at: now)
        for text in ["lost one", "lost two"] { try await network.send(text, from: network.friend, to: network.me) }
        network.devnet.mine()
        let tokens = try await setup.outbox.tokensOnChain()

        #expect(try await check(setup, at: now).assess(tokens) == nil, "within the grace period they may still come")
        let later = now + 11 * 60_000
        #expect(
            try await check(setup, at: later).assess(tokens)
                == .pushesMissing(count: 2, sinceUnixMillis: now, tokens: [Self.token]))

        // Pushed after all (late): no longer missing.
        for transaction in network.devnet.confirmedTransactions where transaction.recipientId == network.me.address {
            _ = try await setup.log.recordShown(
                try transaction.computedID(), account: network.me.address, pushed: true, at: now,
                height: transaction.height)
        }
        #expect(try await check(setup, at: later).assess(tokens) == nil)
    }

    @Test func aHomeThatNeverReceivedAPushSaysNothing() async throws {
        let setup = try await setup()
        try await setup.network.send("never pushed", from: setup.network.friend, to: setup.network.me)
        setup.network.devnet.mine()
        let later = SystemWallClock().unixMillis() + 60 * 60_000
        #expect(try await check(setup, at: later).assess(try await setup.outbox.tokensOnChain()) == nil)
    }

    @Test func pushesAfterTheLastRemoveMeanTheServiceNeverAppliedIt() async throws {
        let setup = try await setup()
        let remove = try await setup.outbox.unregister(token: Self.token)
        _ = try await setup.outbox.waitUntilSettled(remove, within: .seconds(20))
        let tokens = try await setup.outbox.tokensOnChain()
        #expect(tokens[Self.token]?.standing == .unregistered)
        let now = SystemWallClock().unixMillis()
        let message = try await setup.network.send("still pushed", from: setup.network.friend, to: setup.network.me)
        setup.network.devnet.mine()

        try await pushed(message, setup, at: now)
        #expect(
            try await check(setup, at: now).assess(tokens) == nil,
            "a push just after the remove may be the service's last")
        try await pushed(
            try await setup.network.send("and again", from: setup.network.friend, to: setup.network.me), setup,
            at: now + 11 * 60_000)
        #expect(
            try await check(setup, at: now + 12 * 60_000).assess(tokens)
                == .pushesAfterRemove(count: 1, tokens: [Self.token]))
    }
}
