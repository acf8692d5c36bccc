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
}
