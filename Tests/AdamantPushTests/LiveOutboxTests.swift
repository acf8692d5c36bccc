import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation
import Testing

@testable import AdamantPush

/// An in-process devnet with a funded account, its ANS emulator, and outboxes opened on a
/// home of their own: the library end to end over real sockets.
final class OutboxNetwork: Sendable {
    let devnet: Devnet
    let home: TemporaryDirectory
    let account: KeyPair
    let service: NotificationService
    let client: NodeClient

    init(
        mode: ANSMode = .csharp, funded: Bool = true, ansPoll: Duration = .seconds(600),
        configure: (inout DevnetConfiguration) -> Void = { _ in }
    ) async throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = 2
        configuration.blockTime = .milliseconds(200)
        configuration.ansPollInterval = ansPoll  // by default polled by the tests, when they choose
        configuration.ansMode = mode
        configure(&configuration)
        devnet = try Devnet(configuration)
        home = try TemporaryDirectory()
        account = KeyPair(passphrase: Passphrase(unvalidated: "outbox test account \(UUID())"))
        if funded { _ = try devnet.fund(account.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM)) }
        service = try NotificationService(address: devnet.ans.address, publicKey: devnet.ans.publicKey)
        var pool = NodePool.Configuration()
        pool.statusTimeout = .seconds(1)
        pool.requestTimeout = .seconds(2)
        let list = NodeList(
            endpoints: try devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }, nethash: .majority,
            source: .arguments)
        let nodes = NodePool(nodes: list, transport: CurlTransport(), configuration: pool)
        await nodes.checkHealth()
        client = NodeClient(pool: nodes, deadline: .seconds(3))
    }

    deinit { devnet.stop() }

    func outbox(
        home name: String = "home", account: KeyPair? = nil,
        _ configure: (inout Outbox.Configuration) -> Void = { _ in }
    ) throws -> Outbox {
        var configuration = Outbox.Configuration()
        configuration.pollInterval = .milliseconds(50)
        configure(&configuration)
        return try Outbox(
            home: home.path + "/" + name, keyPair: account ?? self.account, service: service, chain: client,
            configuration: configuration)
    }

    /// Another funded account on the same network.
    func stranger() -> KeyPair {
        let keys = KeyPair(passphrase: Passphrase(unvalidated: "a stranger \(UUID())"))
        _ = try! devnet.fund(keys.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
        return keys
    }

    func faultEveryNode(_ fault: String) throws {
        for index in devnet.nodeURLs.indices { try devnet.add(Fault(parsing: fault), toNode: index) }
    }

    func clearFaults() throws {
        for index in devnet.nodeURLs.indices { try devnet.clearFaults(ofNode: index) }
    }

    /// Registers `token` and waits until it is in a block and the service has read it.
    func registered(_ token: String, in outbox: Outbox) async throws {
        let intent = try await outbox.register(token: token, provider: .apns)
        let report = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        try #require(
            report.keys.first { $0.token == token }.map { if case .applied = $0.newest.state { true } else { false } }
                == true, "\(report)")
        devnet.pollANS()
        try #require(registered.contains(token))
    }

    /// The tokens the ANS emulator would push to for this account.
    var registered: [String] { devnet.ansRegistrations.filter { $0.address == account.address }.map(\.token) }
}

@Suite("Outbox, live", .timeLimit(.minutes(1)))
struct LiveOutboxTests {
    static let token = String(repeating: "5a", count: 32)

    @Test func aRegistrationReachesTheServiceAndASecondOneSendsNothing() async throws {
        let network = try await OutboxNetwork()
        let outbox = try network.outbox()
        let intent = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        let key = try #require(report.keys.first)
        guard case .applied(let height?) = key.newest.state else {
            Issue.record("not applied: \(key) \(report.networkProblem.map { "\($0)" } ?? "")")
            return
        }
        #expect(height > 0)
        network.devnet.pollANS()
        #expect(network.registered == [Self.token])

        // The chain already holds it: a new intent is applied with no signal.
        let again = try await outbox.register(token: Self.token, provider: .apns)
        let second = try await outbox.waitUntilSettled(again, within: .seconds(20))
        #expect(second.keys.first?.newest.attempts.isEmpty == true)
        #expect(second.keys.first?.newest.state == .applied(height: height))
    }

    /// An intent given up (here: too old, every send refused by a failing node) is the token's
    /// state until the user acts: every later report shows it failed, with the reason.
    @Test func aFailedIntentStaysInTheReport() async throws {
        let network = try await OutboxNetwork()
        let outbox = try network.outbox { $0.policy.maxAgeMillis = 300 }
        try network.faultEveryNode("status:500@/api/chats/process")
        let intent = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        #expect(report.keys.map(\.newest.state) == [.failed("not applied within 0 days: every try failed")])
        let later = try await outbox.status()
        #expect(later.keys.map(\.newest.id) == [intent.id])
        #expect(later.keys.first?.lastError == "not applied within 0 days: every try failed")
    }

    /// The seed's race: logout while offline queues remove(T); login again registers T. The
    /// remove, never sent, is cancelled; the add is already satisfied, so nothing is sent.
    @Test(arguments: ANSMode.allCases)
    func aRemoveQueuedOfflineNeverUndoesTheNextAdd(_ mode: ANSMode) async throws {
        let network = try await OutboxNetwork(mode: mode)
        let outbox = try network.outbox()
        try await network.registered(Self.token, in: outbox)

        try network.faultEveryNode("refuse")
        let remove = try await outbox.unregister(token: Self.token)
        let offline = try await outbox.waitUntilSettled(remove, within: .zero)  // one pass: the nodes refuse it
        #expect(offline.networkProblem != nil)
        #expect(offline.keys.first?.newest.state == .pending)

        try network.clearFaults()
        await network.client.pool.checkHealth()
        let add = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(add, within: .seconds(20))
        #expect(
            report.keys.first?.newest.state == .applied(height: try #require(report.keys.first?.chain?.last?.height)))
        let queue = try await outbox.queue()
        #expect(queue.first?.map(\.state).dropLast(1).last == .superseded, "the remove was cancelled")
        #expect(queue.first?.flatMap(\.attempts).count == 1, "only the first add was ever sent")
        for _ in 0..<3 {
            network.devnet.mine()
            network.devnet.pollANS()
        }
        #expect(network.registered == [Self.token])
    }

    /// A remove a node took into its pool but never answered, then an add of the same token:
    /// the add waits until the remove is found, then goes out after the gap and wins.
    @Test(arguments: ANSMode.allCases)
    func aRemoveThatLandsLateIsHealedByAFreshAdd(_ mode: ANSMode) async throws {
        let network = try await OutboxNetwork(mode: mode)
        let outbox = try network.outbox()
        try await network.registered(Self.token, in: outbox)

        for _ in 0..<3 { network.devnet.mine() }  // past the gap after the add
        try network.faultEveryNode("timeout-after-accept@/api/chats/process")
        _ = try await outbox.unregister(token: Self.token)
        let unanswered = try await outbox.flush(within: .zero)  // one pass: the send times out
        // The first node never answered; the second said "already processed" (one shared pool).
        let attempts = try #require(unanswered.keys.first?.newest.attempts)
        #expect(attempts.count == 1 && attempts.allSatisfy(\.mayStillLand), "\(attempts)")
        try network.clearFaults()

        let add = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(add, within: .seconds(20))
        let key = try #require(report.keys.first)
        let signals = try await outbox.store.ownSignals(scope: outbox.scope).sorted(by: OwnSignal.inChainOrder).map(
            \.signal.action)
        #expect(signals == [.add, .remove, .add], "the remove landed, then one fresh add")
        #expect(key.chain?.standing == .registered)
        #expect(key.newest.state == .applied(height: key.chain?.last?.height))
        for _ in 0..<3 {
            network.devnet.mine()
            network.devnet.pollANS()
        }
        #expect(network.registered == [Self.token])
    }

    /// Unregister then register within one poll window of the service, with and without a
    /// stranger's new add in the same window: the token ends registered either way.
    @Test(arguments: [(ANSMode.csharp, false), (.csharp, true), (.ordered, false), (.ordered, true)])
    func removeThenAddWithinOnePollEndsRegistered(_ mode: ANSMode, _ withStranger: Bool) async throws {
        let network = try await OutboxNetwork(mode: mode, ansPoll: .milliseconds(400))  // two blocks, like 10 s
        let outbox = try network.outbox()
        try await network.registered(Self.token, in: outbox)
        let stranger = try network.outbox(home: "stranger", account: network.stranger())

        let remove = try await outbox.unregister(token: Self.token)
        _ = try await outbox.waitUntilSettled(remove, within: .seconds(20))
        let add = try await outbox.register(token: Self.token, provider: .apns)
        async let theirs =
            withStranger ? stranger.register(token: String(repeating: "77", count: 32), provider: .apns) : nil
        if let theirs = try await theirs { _ = try await stranger.waitUntilSettled(theirs, within: .seconds(20)) }
        let report = try await outbox.waitUntilSettled(add, within: .seconds(20))
        #expect(report.keys.first?.chain?.standing == .registered)
        let before = network.devnet.height
        #expect(await eventually { network.devnet.height > before + 4 }, "the service has polled past it")
        #expect(network.registered == [Self.token])
    }

    /// With a fresh home, the chain's history alone finds every token to remove.
    @Test func unregisterAllFromAFreshHomeRemovesEveryTokenEverRegistered() async throws {
        let network = try await OutboxNetwork()
        let first = try network.outbox(home: "before-reinstall")
        let tokens = (0..<3).map { String(repeating: String(format: "%02x", $0 + 1), count: 32) }
        for token in tokens { _ = try await first.register(token: token, provider: .apns) }
        _ = try await first.flush(within: .seconds(20))
        network.devnet.pollANS()
        #expect(Set(network.registered) == Set(tokens))

        let reinstalled = try network.outbox(home: "after-reinstall")
        let removes = try await reinstalled.unregisterAll()
        #expect(Set(removes.map(\.signal.token)) == Set(tokens))
        let report = try await reinstalled.flush(within: .seconds(20))
        #expect(
            report.keys.count == 3
                && report.keys.allSatisfy { $0.newest.state != .pending && $0.chain?.standing == .unregistered })
        for _ in 0..<3 {
            network.devnet.mine()
            network.devnet.pollANS()
        }
        #expect(network.registered.isEmpty)
        #expect(try await reinstalled.unregisterAll().isEmpty, "nothing left to remove")
    }

    /// No ADM: the intent waits for funds, says what it costs, and goes out once funded.
    @Test func anUnfundedAccountWaitsForFundsAndSendsOnceFunded() async throws {
        let network = try await OutboxNetwork(funded: false)
        let outbox = try network.outbox()
        let intent = try await outbox.register(token: Self.token, provider: .apns)
        // Generous: the pass's calls end by this, and the suite loads the machine.
        let poor = try await outbox.waitUntilSettled(intent, within: .seconds(30))
        #expect(poor.keys.first?.newest.state == .waitingForFunds)
        #expect(poor.balance == ADMAmount(units: 0))
        #expect(poor.keys.first?.newest.attempts.isEmpty == true, "nothing signed without the fee")

        _ = try network.devnet.fund(network.account.address, amount: ADMAmount(units: 100_000))  // exactly one fee
        let funded = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        guard case .applied? = funded.keys.first?.newest.state else {
            Issue.record("\(funded)")
            return
        }
        #expect(network.devnet.balance(of: network.account.address) == ADMAmount(units: 0))
    }

    /// 0.9 nodes have no past window; nodes whose clocks are two minutes off either way still
    /// take signals stamped with their own clock.
    @Test(arguments: ["0.9.0", "skew:120", "skew:-120"])
    func oldNodesAndSkewedClocksStillTakeTheSignal(_ variant: String) async throws {
        let network = try await OutboxNetwork { configuration in
            if variant.hasPrefix("skew") {
                configuration.faults = (0..<2).map { .init(node: $0, fault: try! Fault(parsing: variant)) }
            } else {
                configuration.nodeVersion = NodeVersion(variant)!
            }
        }
        let outbox = try network.outbox()
        let intent = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(intent, within: .seconds(20))
        guard case .applied? = report.keys.first?.newest.state else {
            Issue.record("\(report)")
            return
        }
        #expect(report.keys.first?.newest.attempts.count == 1)
    }

    /// `status` runs the scheduler too, short of signing: an intent the chain already satisfies
    /// is recorded applied, one it does not is left pending with nothing sent.
    @Test func statusBringsStatesUpToDateAndSendsNothing() async throws {
        let network = try await OutboxNetwork()
        try await network.registered(Self.token, in: try network.outbox(home: "first"))
        let confirmed = network.devnet.confirmedTransactions.count

        let fresh = try network.outbox(home: "fresh")
        _ = try await fresh.register(token: Self.token, provider: .apns)
        let other = String(repeating: "6b", count: 32)
        _ = try await fresh.register(token: other, provider: .apns)
        let report = try await fresh.status()
        #expect(report.networkProblem == nil)
        let states = Dictionary(
            uniqueKeysWithValues: try await fresh.queue().compactMap(\.last).map { ($0.signal.token, $0) })
        #expect(
            states[Self.token]?.state
                == .applied(height: try #require(report.keys.first { $0.token == Self.token }?.chain?.last?.height)))
        #expect(states[other]?.state == .pending)
        #expect(states.values.allSatisfy { $0.attempts.isEmpty }, "status signed something")
        network.devnet.mine()
        #expect(network.devnet.confirmedTransactions.count == confirmed, "status sent something")
    }

    /// Evidence says the service lost what the chain shows: `repair(resend:)` sends the last
    /// signal again although the chain holds it, and applies it once its own signal lands.
    @Test(arguments: [PushAction.add, .remove])
    func repairResendsWhatTheChainAlreadyShows(_ action: PushAction) async throws {
        let network = try await OutboxNetwork(mode: .ordered)
        let outbox = try network.outbox()
        try await network.registered(Self.token, in: outbox)
        if action == .remove {
            let remove = try await outbox.unregister(token: Self.token)
            _ = try await outbox.waitUntilSettled(remove, within: .seconds(20))
        }
        let before = try await outbox.store.ownSignals(scope: outbox.scope).count

        let made = try await outbox.repair(resend: [Self.token])
        #expect(made.map(\.action) == [action])
        #expect(made.first?.mustSend == true)
        let report = try await outbox.waitUntilSettled(try #require(made.first), within: .seconds(20))
        let key = try #require(report.keys.first)
        guard case .applied(let height?) = key.newest.state else {
            Issue.record("\(key)")
            return
        }
        #expect(key.newest.attempts.contains { $0.id == key.chain?.last?.id }, "applied through its own signal")
        #expect(key.chain?.last?.height == height)
        #expect(try await outbox.store.ownSignals(scope: outbox.scope).count == before + 1)
    }

    /// Eight outboxes on one home (as eight processes would be) register one token at once:
    /// one signal goes out.
    @Test func outboxesSharingAHomeSendOneSignal() async throws {
        let network = try await OutboxNetwork()
        let outboxes = try (0..<8).map { _ in try network.outbox() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for outbox in outboxes {
                group.addTask {
                    let intent = try await outbox.register(token: Self.token, provider: .apns)
                    _ = try await outbox.waitUntilSettled(intent, within: .seconds(20))
                }
            }
            try await group.waitForAll()
        }
        let signals = try await outboxes[0].store.ownSignals(scope: outboxes[0].scope)
        #expect(signals.count == 1, "\(signals.map(\.id))")
        #expect(try await outboxes[0].queue().first?.count == 8, "every intent was kept")
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
