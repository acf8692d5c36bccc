import AdamantCore
import Testing

@testable import AdamantNodes

/// A cold process adopts the health another process measured: no status check before the
/// first read, and a check as soon as an adopted node fails.
@Suite struct HealthSnapshotTests {
    let transport = ScriptedTransport()

    func measured(_ nodes: [String]) async -> HealthSnapshot? {
        let pool = Fixtures.pool(transport, nodes: nodes)
        await pool.checkHealth()
        return pool.healthSnapshot()
    }

    @Test func aSnapshotRecordsWhatTheCheckFoundAndWhen() async throws {
        transport.node("http://a:1")
        transport.route("http://b:1") { _, _ in .json(FakeStatus().json, after: .milliseconds(120)) }
        transport.route("http://down:1") { _, _ in .fail(.unreachable("connection refused")) }
        #expect(Fixtures.pool(transport, nodes: ["http://a:1"]).healthSnapshot() == nil, "nothing measured yet")
        let snapshot = try #require(await measured(["http://a:1", "http://b:1", "http://down:1"]))
        #expect(snapshot.measuredAt == Fixtures.unixMillis)
        #expect(snapshot.nodes.map(\.usable) == [true, true, false])
        #expect((snapshot.nodes[1].latencyMicros ?? 0) >= 100_000)
    }

    @Test func anAdoptedSnapshotServesReadsWithNoStatusCheck() async throws {
        for node in ["http://a:1", "http://b:1"] {
            transport.node(node, paths: ["/api/blocks/getHeight": .json("{\"success\":true,\"height\":1000}")])
        }
        let snapshot = try #require(await measured(["http://a:1", "http://b:1"]))
        let before = transport.requests(to: "/api/node/status").count

        let cold = Fixtures.pool(transport, nodes: ["http://a:1", "http://b:1"])
        #expect(cold.adopt(snapshot))
        _ = try await NodeClient(pool: cold).height()
        #expect(transport.requests(to: "/api/node/status").count == before, "no check before the read")
        #expect(cold.healthSnapshot() == nil, "an adopted snapshot is not passed on as measured")
    }

    @Test func aFailingAdoptedNodeBringsACheckBeforeTheNextRead() async throws {
        transport.node("http://a:1")
        transport.node("http://b:1")
        let snapshot = try #require(await measured(["http://a:1", "http://b:1"]))
        transport.route("http://a:1") { _, _ in .fail(.unreachable("connection refused")) }
        transport.route("http://b:1") { _, _ in .fail(.unreachable("connection refused")) }
        let cold = Fixtures.pool(transport, nodes: ["http://a:1", "http://b:1"])
        #expect(cold.adopt(snapshot))
        let before = transport.requests(to: "/api/node/status").count
        _ = try? await NodeClient(pool: cold).height()
        _ = try? await NodeClient(pool: cold).height()
        #expect(transport.requests(to: "/api/node/status").count > before, "the failure made the pool check")
        #expect(cold.reports.allSatisfy { !$0.health.isUsable })
    }

    @Test func aSnapshotOfOtherNodesOrNoUsableOneIsNotAdopted() async throws {
        transport.node("http://a:1")
        let snapshot = try #require(await measured(["http://a:1"]))
        #expect(!Fixtures.pool(transport, nodes: ["http://other:1"]).adopt(snapshot))
        var unusable = snapshot
        unusable.nodes[0].usable = false
        #expect(!Fixtures.pool(transport, nodes: ["http://a:1"]).adopt(unusable))
    }

    /// Writes stamp with a node's clock, which an adopted snapshot does not carry.
    @Test func aWriteChecksFirstEvenWithAnAdoptedSnapshot() async throws {
        transport.node("http://a:1")
        let snapshot = try #require(await measured(["http://a:1"]))
        let cold = Fixtures.pool(transport, nodes: ["http://a:1"])
        #expect(cold.adopt(snapshot))
        let before = transport.requests(to: "/api/node/status").count
        _ = await cold.usableNodes(forStamping: true)
        #expect(transport.requests(to: "/api/node/status").count == before + 1)
    }

    @Test(arguments: [(0, true), (600_000, true), (600_001, false), (-1, false)])
    func freshness(age: Int64, fresh: Bool) {
        let snapshot = HealthSnapshot(measuredAt: 1_000_000, nodes: [])
        #expect(snapshot.isFresh(at: 1_000_000 + age, maximumAge: .seconds(600)) == fresh)
    }
}
