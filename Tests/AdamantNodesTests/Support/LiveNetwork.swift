import AdamantCore
import AdamantDevnet
import Synchronization
import Testing

@testable import AdamantNodes

/// The in-process devnet (three simulated nodes on loopback ports), reached through the real
/// libcurl transport: the end-to-end fixture. Blocks come on a short timer too, but a test that
/// needs one forges it with `devnet.mine()`.
final class LiveNetwork: Sendable {
    let devnet: Devnet
    let nodes: [NodeURL]
    /// Shared by every pool this network hands out, so connections are reused across pools.
    let transport: RecordingTransport

    init(nodeCount: Int = 3, faults: [(node: Int, fault: String)] = []) throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = nodeCount
        configuration.blockTime = .milliseconds(200)
        configuration.ansPollInterval = .seconds(600)
        // A socket's poll is given up after the heartbeat: 8 s here, not real nodes' 45.
        configuration.socketPingInterval = .seconds(4)
        configuration.socketPingTimeout = .seconds(4)
        configuration.faults = try faults.map { .init(node: $0.node, fault: try Fault(parsing: $0.fault)) }
        devnet = try Devnet(configuration)
        try devnet.fund(Fixtures.sender.address, amount: ADMAmount(units: 1_000 * ADMAmount.unitsPerADM))
        nodes = try devnet.nodeURLs.map { try NodeURL($0) }
        transport = RecordingTransport(CurlTransport())
    }

    deinit { devnet.stop() }

    /// A health-checked client over `nodes` (all of them by default). Hedging is quick, so a
    /// silent node costs a fraction of a second; timeouts are long enough for a busy machine
    /// and far from what hedging costs, so a test can tell the two apart.
    func client(
        nodes: [NodeURL]? = nil, deadline: Duration = .seconds(10), transport: (any HTTPTransport)? = nil,
        wallClock: any WallClock = SystemWallClock(), configure: (inout NodePool.Configuration) -> Void = { _ in }
    ) async -> NodeClient {
        var configuration = NodePool.Configuration()
        configuration.statusTimeout = .seconds(3)
        configuration.connectTimeout = .seconds(1)
        configuration.requestTimeout = .seconds(3)
        configuration.hedgeDelayBounds = .milliseconds(50) ... .milliseconds(300)
        configure(&configuration)
        let list = NodeList(
            endpoints: (nodes ?? self.nodes).map { NodeEndpoint(url: $0) }, nethash: .majority, source: .arguments)
        let pool = NodePool(
            nodes: list, transport: transport ?? self.transport, configuration: configuration, wallClock: wallClock)
        await pool.checkHealth()
        return NodeClient(pool: pool, deadline: deadline)
    }

    /// Signs a chat from `Fixtures.sender` for the best node's clock and sends it through `client`.
    func sendChat(_ text: String, via client: NodeClient) async throws -> SubmitResult {
        let asset = try ChatKey(secretKey: Fixtures.sender.secretKey, partner: Fixtures.recipient.publicKey).seal(text)
        return try await client.submitChat(asset, to: Fixtures.recipient.address, signedBy: Fixtures.sender)
    }

    // MARK: Faults and what the nodes saw

    func add(_ fault: String, to node: NodeURL) throws {
        try devnet.add(Fault(parsing: fault), toNode: index(of: node))
    }

    func clearFaults() throws {
        for index in nodes.indices { try devnet.clearFaults(ofNode: index) }
    }

    /// The devnet's own log of `node`: requests for `path`, answered or not.
    func requests(to node: NodeURL, method: String = "GET", path: String) throws -> [RequestRecord] {
        try devnet.requests(toNode: index(of: node)).filter { $0.method == method && $0.path == path }
    }

    /// Whether `node` sent a complete HTTP 200 for `path`, by the devnet's own log.
    func answered(_ path: String, from node: NodeURL) throws -> Bool {
        try requests(to: node, path: path).contains { $0.status == 200 }
    }

    private func index(of node: NodeURL) -> Int { nodes.firstIndex(of: node)! }
}

/// The usual starting point: a live network, a health-checked client, and a chat in a block.
struct ChatOnChain {
    static let path = "/api/transactions/get"

    let network: LiveNetwork
    let client: NodeClient
    let id: TransactionID

    /// `requestTimeout`: the tests that prove no timeout was waited for give a long one, so a
    /// busy machine stays far inside it while a read that did wait cannot.
    init(deadline: Duration = .seconds(10), requestTimeout: Duration? = nil) async throws {
        network = try LiveNetwork()
        client = await network.client(deadline: deadline) { configuration in
            if let requestTimeout { configuration.requestTimeout = requestTimeout }
        }
        // Sent with time to spare: the deadline under test is the reads'.
        let sent = try await network.sendChat("on chain", via: NodeClient(pool: client.pool, deadline: .seconds(20)))
        try #require(sent.outcome == .accepted(sent.transactionID))
        network.devnet.mine()  // takes the queue along: the chat is in this block
        id = sent.transactionID
    }

    /// The usable nodes, best first, as the next read will rank them.
    func ranked() async throws -> [NodeURL] {
        try await client.pool.usableNodes().get().map(\.url)
    }
}

/// The real transport, noting every request in the order it was sent.
final class RecordingTransport: HTTPTransport {
    private let transport: any HTTPTransport
    private let sent = Mutex<[HTTPRequest]>([])

    init(_ transport: any HTTPTransport) { self.transport = transport }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        sent.withLock { $0.append(request) }
        return try await transport.send(request)
    }

    /// The nodes asked for `path` (whatever the query), in order.
    func nodesAsked(for path: String, among nodes: [NodeURL]) -> [NodeURL] {
        sent.withLock { $0 }.compactMap { request in
            nodes.first { node in
                let target = node.description + path
                return request.url == target || request.url.hasPrefix(target + "?")
            }
        }
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` passes (generous: it
/// only costs time when the condition never holds).
func eventually(within timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
