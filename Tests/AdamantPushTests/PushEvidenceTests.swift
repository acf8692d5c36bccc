import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantStore
import Synchronization
import Testing

@testable import AdamantPush

/// "Pushes stopped" and "pushes after a remove", told from the home's records and the chain.
@Suite("Push evidence", .timeLimit(.minutes(1)))
struct PushEvidenceTests {
    static let token = String(repeating: "e1", count: 32)

    struct Setup {
        let network: OutboxNetwork
        /// Who writes to the account.
        let friend: KeyPair
        let outbox: Outbox
        let log: NotificationLog
    }

    func setup() async throws -> Setup {
        let network = try await OutboxNetwork(mode: .ordered)
        let outbox = try network.outbox(home: "home")
        let intent = try await outbox.register(token: Self.token, provider: .apns)
        _ = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        return Setup(
            network: network, friend: network.stranger(), outbox: outbox,
            log: try NotificationLog(home: network.home.file("home")))
    }

    func check(_ setup: Setup, at unixMillis: Int64) -> PushEvidenceCheck {
        PushEvidenceCheck(
            account: setup.network.account.address, log: setup.log,
            client: NodeClient(pool: setup.network.client.pool), wallClock: ManualWallClock(unixMillis: unixMillis))
    }

    /// Records `transaction` as brought by a push at `unixMillis`, once it is in a block.
    func pushed(_ transaction: Transaction, _ setup: Setup, at unixMillis: Int64) async throws {
        setup.network.devnet.mine()
        let confirmed = try #require(
            setup.network.devnet.confirmedTransactions.first { $0.signature == transaction.signature })
        _ = try await setup.log.recordShown(
            try transaction.computedID(), account: setup.network.account.address, pushed: true, at: unixMillis,
            height: confirmed.height)
    }

    @Test func messagesOlderThanTheGraceThatCameWithoutAPushAreCounted() async throws {
        let setup = try await setup()
        let network = setup.network
        let now = SystemWallClock().unixMillis()
        let first = try await network.send("pushed", from: setup.friend, to: network.account)
        network.devnet.mine()
        try await pushed(first, setup, at: now)
        for text in ["lost one", "lost two"] { try await network.send(text, from: setup.friend, to: network.account) }
        network.devnet.mine()
        let tokens = try await setup.outbox.tokensOnChain()

        #expect(try await check(setup, at: now).assess(tokens) == nil, "within the grace period they may still come")
        let later = now + 11 * 60_000
        #expect(
            try await check(setup, at: later).assess(tokens)
                == .pushesMissing(count: 2, sinceUnixMillis: now, tokens: [Self.token]))

        // Pushed after all (late): no longer missing.
        for transaction in network.devnet.confirmedTransactions where transaction.recipientId == network.account.address
        {
            _ = try await setup.log.recordShown(
                try transaction.computedID(), account: network.account.address, pushed: true, at: now,
                height: transaction.height)
        }
        #expect(try await check(setup, at: later).assess(tokens) == nil)
    }

    @Test func aHomeThatNeverReceivedAPushSaysNothing() async throws {
        let setup = try await setup()
        try await setup.network.send("never pushed", from: setup.friend, to: setup.network.account)
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
        let message = try await setup.network.send("still pushed", from: setup.friend, to: setup.network.account)
        setup.network.devnet.mine()

        try await pushed(message, setup, at: now)
        #expect(
            try await check(setup, at: now).assess(tokens) == nil,
            "a push just after the remove may be the service's last")
        try await pushed(
            try await setup.network.send("and again", from: setup.friend, to: setup.network.account), setup,
            at: now + 11 * 60_000)
        #expect(
            try await check(setup, at: now + 12 * 60_000).assess(tokens)
                == .pushesAfterRemove(count: 1, tokens: [Self.token]))
    }
}

extension OutboxNetwork {
    /// Sends `text` from `sender` to `recipient` and returns the signed transaction once a
    /// node took it (not yet in a block).
    @discardableResult
    fileprivate func send(_ text: String, from sender: KeyPair, to recipient: KeyPair) async throws -> Transaction {
        let asset = try ChatKey(secretKey: sender.secretKey, partner: recipient.publicKey).seal(text, type: .message)
        let captured = Mutex<Transaction?>(nil)
        let result = try await NodeClient(pool: client.pool).submitChat(
            asset, to: recipient.address, signedBy: sender
        ) { transaction in
            captured.withLock { $0 = transaction }
        }
        try #require(result.outcome == .accepted(result.transactionID), "not accepted: \(result)")
        return try #require(captured.withLock { $0 })
    }
}
