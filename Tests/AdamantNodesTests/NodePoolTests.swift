import AdamantCore
import Testing

@testable import AdamantNodes

@Suite struct NodePoolTests {
    let transport = ScriptedTransport()

    @Test func healthCheckGivesEachNodeItsStatus() async {
        transport.node("http://a:1", FakeStatus(height: 1_000))
        transport.node("http://b:1", FakeStatus(height: 1_009, reportsMillis: false))
        transport.node("http://lag:1", FakeStatus(height: 950))
        transport.node("http://old:1", FakeStatus(version: "0.7.9"))
        transport.node("http://testnet:1", FakeStatus(nethash: String(repeating: "38", count: 32)))
        transport.route("http://html:1") { _, _ in .htmlPage }
        let nodes = [
            "http://a:1", "http://b:1", "http://lag:1", "http://old:1", "http://testnet:1", "http://html:1",
            "http://down:1",
        ]
        let pool = Fixtures.pool(transport, nodes: nodes, nethash: .pinned(.mainnet))

        let health = await pool.checkHealth().map(\.health)
        #expect(health[0] == .usable && health[1] == .usable)
        #expect(health[2] == .outOfSync(height: 950, agreed: 1_000...1_010))
        #expect(health[3] == .outdated(NodeVersion(0, 7, 9)))
        #expect(health[4].name == "wrongNetwork")
        #expect(health[5] == .notANode(reason: "HTTP 502 with a body that is not node JSON (text/html)"))
        #expect(health[6] == .offline(reason: "unreachable: connection refused"))
    }

    @Test func clockDeltaFromMillisecondsOrSeconds() async {
        // The device clock runs 90 s fast; node a reports milliseconds, node b only seconds.
        transport.node("http://a:1", FakeStatus(epochMillis: Fixtures.nodeEpochMillis + 1_234))
        transport.node("http://b:1", FakeStatus(epochMillis: Fixtures.nodeEpochMillis + 1_234, reportsMillis: false))
        let pool = Fixtures.pool(
            transport, nodes: ["http://a:1", "http://b:1"],
            wallClock: ManualWallClock(unixMillis: Fixtures.unixMillis + 90_000))
        let clocks = await pool.checkHealth().map { $0.clock?.deltaMillis }
        #expect(clocks == [90_000 - 1_234, 90_000 - 1_000])
    }

    /// The status answer reaches the task 20 s after it arrived (a loaded device): the node's
    /// clock is read as of the arrival, not taken for 20 s behind, which would stamp every
    /// chat 20 s in the past and have it refused until the next health check.
    @Test func aStatusReadLateIsNotTakenForASlowClock() async {
        let now = Fixtures.unixMillis
        let status = FakeStatus(epochMillis: AdamantTime.epochMillis(unixMillis: now - 20_000))
        transport.route("http://a:1") { _, _ in .answer(body: status.json, late: .seconds(20)) }
        let pool = Fixtures.pool(transport, nodes: ["http://a:1"], wallClock: ManualWallClock(unixMillis: now))
        let delta = await pool.checkHealth().first?.clock?.deltaMillis
        #expect(delta.map { abs($0) < 1_000 } == true, "\(String(describing: delta))")
    }

    @Test func rankedByMeasuredLatency() async {
        transport.route("http://slow:1") { _, _ in .json(FakeStatus().json, after: .milliseconds(150)) }
        transport.node("http://fast:1")
        let pool = Fixtures.pool(transport, nodes: ["http://slow:1", "http://fast:1"])
        await pool.checkHealth()
        let ranked = await pool.usableNodes().map { $0.map(\.url.description) }
        #expect(ranked == .success(["http://fast:1", "http://slow:1"]))
    }

    @Test func alternateURLWhenTheMainOneFails() async {
        transport.node("http://10.0.0.9:36666")
        let list = NodeList(
            endpoints: [
                NodeEndpoint(
                    url: try! NodeURL("https://gone.example"), alternate: try! NodeURL("http://10.0.0.9:36666"))
            ],
            nethash: .pinned(.mainnet), source: .builtIn)
        var configuration = NodePool.Configuration()
        configuration.healthCheckDeadline = .seconds(30)
        let pool = NodePool(
            nodes: list, transport: transport, configuration: configuration,
            wallClock: ManualWallClock(unixMillis: Fixtures.unixMillis))
        let report = await pool.checkHealth()[0]
        #expect(report.url.description == "http://10.0.0.9:36666" && report.health == .usable)
    }

    @Test func concurrentChecksShareOneRun() async {
        transport.route("http://a:1") { _, _ in .json(FakeStatus().json, after: .milliseconds(50)) }
        let pool = Fixtures.pool(transport, nodes: ["http://a:1"])
        async let first = pool.checkHealth()
        async let second = pool.checkHealth()
        _ = await (first, second)
        #expect(transport.requests(to: "/api/node/status").count == 1)
    }

    @Test(.timeLimit(.minutes(1))) func noUsableNodeSaysWhy() async {
        transport.node("http://old:1", FakeStatus(version: "0.7.0"))
        // The node's answer must be read for it to be outdated, so no timeout may fire first: on
        // a clock that stands still none can, however long a full run keeps this task waiting.
        let pool = Fixtures.pool(transport, nodes: ["http://old:1"], clock: AnyClock(ManualClock()))
        let client = NodeClient(pool: pool)
        do {
            _ = try await client.height()
            Issue.record("expected no usable node")
        } catch {
            guard case .noUsableNode(let reports) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reports.map(\.health) == [.outdated(NodeVersion(0, 7, 0))])
        }
    }
}
