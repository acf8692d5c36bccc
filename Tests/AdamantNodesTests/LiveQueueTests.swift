import AdamantCore
import Testing

@testable import AdamantNodes

/// Health checks over the real transport with more nodes than connection slots: silent nodes
/// (paths on one loopback socket that never answers, so the test holds few descriptors) hold
/// every slot for a status timeout.
@Suite(.timeLimit(.minutes(1)))
struct LiveQueueTests {
    static let slots = 2
    let network: LiveNetwork
    let silent = LoopbackServer(.silent)
    let transport = CurlTransport(configuration: .init(maxConcurrentRequests: slots))

    init() throws { network = try LiveNetwork(nodeCount: 1) }

    /// `rounds` of silent nodes, one per slot, listed before the devnet's node.
    func pool(silentRounds rounds: Int, configure: (inout NodePool.Configuration) -> Void = { _ in }) -> NodePool {
        var configuration = NodePool.Configuration()
        configuration.statusTimeout = .seconds(1)
        configuration.connectTimeout = .seconds(1)
        configure(&configuration)
        let silentNodes = (0..<(rounds * Self.slots)).map {
            try! NodeURL("http://127.0.0.1:\(silent.port)/silent/\($0)")
        }
        let urls = silentNodes + [network.nodes[0]]
        let list = NodeList(endpoints: urls.map { NodeEndpoint(url: $0) }, nethash: .majority, source: .arguments)
        return NodePool(nodes: list, transport: transport, configuration: configuration)
    }

    /// Two rounds of silent nodes ahead of the healthy one in the queue: its latency is its
    /// time on the wire, not the two seconds it waited for a slot.
    @Test func latencyLeavesOutTheTimeQueuedForASlot() async throws {
        // A status timeout of 2 s: the silent nodes' queue, and time enough for the healthy
        // node to answer on a busy machine.
        let pool = pool(silentRounds: 2) {
            $0.statusTimeout = .seconds(2)
            $0.healthCheckDeadline = .seconds(30)
        }
        let started = ContinuousClock.now
        let healthy = try #require(await pool.checkHealth().last)
        let queued = started.duration(to: .now)

        #expect(healthy.health.isUsable, "\(healthy.health)")
        #expect(queued >= .seconds(4))
        let latency = try #require(healthy.latency)
        #expect(latency < queued / 2, "latency \(latency) after \(queued) in the queue")
    }

    /// Forty rounds of silent nodes: the check ends at its deadline, not after forty seconds,
    /// and the nodes it never reached are offline for it. (The bound leaves room for a busy
    /// machine; `PoolTimingTests` checks the deadline exactly, on a manual clock.)
    @Test func aHealthCheckHasOneDeadline() async throws {
        let pool = pool(silentRounds: 40) { $0.healthCheckDeadline = .milliseconds(1_200) }
        let started = ContinuousClock.now
        let reports = await pool.checkHealth()
        let elapsed = started.duration(to: .now)

        #expect(elapsed < .seconds(30), "\(elapsed)")
        #expect(reports.allSatisfy { $0.health == .offline(reason: "timed out") }, "\(reports.map(\.health))")
    }
}
