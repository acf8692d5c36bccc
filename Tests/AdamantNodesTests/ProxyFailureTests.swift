import AdamantCore
import Synchronization
import Testing

@testable import AdamantNodes

/// A failure of the proxy is the proxy's: the request fails, and the nodes keep their rank,
/// their health and the trust put in what another process measured.
@Suite struct ProxyFailureTests {
    let transport = ScriptedTransport()
    static let nodes = ["http://a:1", "http://b:1"]
    static let proxyDown = TransportError.proxyFailed(
        proxy: "socks5h://127.0.0.1:9050", reason: "Couldn't connect to server")
    static let height = Behavior.json("{\"success\":true,\"height\":1000}")

    /// Whether the proxy is down.
    final class Outage: Sendable {
        private let state = Mutex(false)
        var isOn: Bool { state.withLock { $0 } }
        func set(_ on: Bool) { state.withLock { $0 = on } }
    }

    /// a answers in 10 ms and b in 80 ms until the proxy goes down, then nothing does.
    func network(down: Outage) {
        for (node, delay) in zip(Self.nodes, [10, 80]) {
            transport.route(node) { _, path in
                if down.isOn { return .fail(Self.proxyDown) }
                return path == "/api/node/status" ? .json(FakeStatus().json, after: .milliseconds(delay)) : Self.height
            }
        }
    }

    @Test func aReadTheProxyFailedLeavesTheNodesRankedAsTheyWere() async throws {
        let down = Outage()
        network(down: down)
        let pool = Fixtures.pool(transport, nodes: Self.nodes)
        await pool.checkHealth()
        let before = pool.reports
        #expect(try await pool.usableNodes().get().map(\.url.description) == Self.nodes)

        down.set(true)
        await #expect(throws: NodeError.self) { _ = try await NodeClient(pool: pool).height() }
        #expect(pool.reports.map(\.latency) == before.map(\.latency), "no failure penalty")
        #expect(try await pool.usableNodes().get().map(\.url.description) == Self.nodes, "a ranks first still")

        await pool.checkHealth()
        #expect(
            pool.reports.map(\.health) == [.usable, .usable],
            "a check through the failed proxy leaves the nodes as found")
        down.set(false)
        #expect(try await NodeClient(pool: pool).height() == 1000)
    }

    @Test func anAdoptedSnapshotIsStillTrustedAfterTheProxyFailed() async throws {
        let down = Outage()
        network(down: down)
        let measured = Fixtures.pool(transport, nodes: Self.nodes)
        await measured.checkHealth()
        let snapshot = try #require(measured.healthSnapshot())

        let cold = Fixtures.pool(transport, nodes: Self.nodes)
        #expect(cold.adopt(snapshot))
        down.set(true)
        await #expect(throws: NodeError.self) { _ = try await NodeClient(pool: cold).height() }
        #expect(
            cold.reports.allSatisfy { $0.health.isUsable }, "the adopted health stands: \(cold.reports.map(\.health))")
        down.set(false)
        #expect(try await NodeClient(pool: cold).height() == 1000)
    }
}
