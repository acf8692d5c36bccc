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

    init(mode: ANSMode = .csharp, funded: Bool = true) async throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = 2
        configuration.blockTime = .milliseconds(200)
        configuration.ansPollInterval = .seconds(600)  // polled by the tests, when they choose
        configuration.ansMode = mode
        devnet = try Devnet(configuration)
        home = try TemporaryDirectory()
        account = KeyPair(passphrase: Passphrase(unvalidated: "outbox test account \(UUID())"))
        if funded { devnet.fund(account.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM)) }
        service = try NotificationService(address: devnet.ans.address, publicKey: devnet.ans.publicKey)
        var pool = NodePool.Configuration()
        pool.statusTimeout = .seconds(1)
        pool.requestTimeout = .seconds(2)
        let list = NodeList(endpoints: try devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }, nethash: .majority, source: .arguments)
        let nodes = NodePool(nodes: list, transport: CurlTransport(), configuration: pool)
        await nodes.checkHealth()
        client = NodeClient(pool: nodes, deadline: .seconds(3))
    }

    deinit { devnet.stop() }

    func outbox(_ configure: (inout Outbox.Configuration) -> Void = { _ in }) throws -> Outbox {
        var configuration = Outbox.Configuration()
        configuration.pollInterval = .milliseconds(50)
        configure(&configuration)
        return try Outbox(home: home.path + "/home", keyPair: account, service: service, chain: client, configuration: configuration)
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
        let report = try await outbox.waitUntilSettled(intent, until: .now + .seconds(20))
        try #require(report.keys.first { $0.token == token }.map { if case .applied = $0.newest.state { true } else { false } } == true)
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
        let report = try await outbox.waitUntilSettled(intent, until: .now + .seconds(20))
        let key = try #require(report.keys.first)
        guard case .applied(let height?) = key.newest.state else { Issue.record("not applied: \(key)"); return }
        #expect(height > 0)
        network.devnet.pollANS()
        #expect(network.registered == [Self.token])

        // The chain already holds it: a new intent is applied with no signal.
        let again = try await outbox.register(token: Self.token, provider: .apns)
        let second = try await outbox.waitUntilSettled(again, until: .now + .seconds(20))
        #expect(second.keys.first?.newest.attempts.isEmpty == true)
        #expect(second.keys.first?.newest.state == .applied(height: height))
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
        let offline = try await outbox.waitUntilSettled(remove, until: .now + .milliseconds(300))
        #expect(offline.networkProblem != nil)
        #expect(offline.keys.first?.newest.state == .pending)

        try network.clearFaults()
        await network.client.pool.checkHealth()
        let add = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(add, until: .now + .seconds(20))
        #expect(report.keys.first?.newest.state == .applied(height: try #require(report.keys.first?.chain?.last?.height)))
        let queue = try await outbox.queue()
        #expect(queue.first?.map(\.state).dropLast(1).last == .superseded, "the remove was cancelled")
        #expect(queue.first?.flatMap(\.attempts).count == 1, "only the first add was ever sent")
        for _ in 0..<3 { network.devnet.mine(); network.devnet.pollANS() }
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
        let unanswered = try await outbox.flush(until: .now)  // one pass: the send times out
        // The first node never answered; the second said "already processed" (one shared pool).
        let attempts = try #require(unanswered.keys.first?.newest.attempts)
        #expect(attempts.count == 1 && attempts.allSatisfy(\.mayStillLand), "\(attempts)")
        try network.clearFaults()

        let add = try await outbox.register(token: Self.token, provider: .apns)
        let report = try await outbox.waitUntilSettled(add, until: .now + .seconds(20))
        let key = try #require(report.keys.first)
        let signals = try await outbox.store.ownSignals(scope: outbox.scope).sorted(by: OwnSignal.inChainOrder).map(\.signal.action)
        #expect(signals == [.add, .remove, .add], "the remove landed, then one fresh add")
        #expect(key.chain?.standing == .registered)
        #expect(key.newest.state == .applied(height: key.chain?.last?.height))
        for _ in 0..<3 { network.devnet.mine(); network.devnet.pollANS() }
        #expect(network.registered == [Self.token])
    }
}
