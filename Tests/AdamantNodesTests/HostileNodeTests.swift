import AdamantCore
import Testing

@testable import AdamantNodes

/// Nodes that send nonsense, lie about the network, or run a wrong clock: each is set aside
/// (or kept from stamping) with a reason a user can act on, and nothing traps.
@Suite(.timeLimit(.minutes(1)))
struct HostileNodeTests {
    let transport = ScriptedTransport()

    static func status(height: String = "1000", timestamp: String = "230021386", millis: String? = nil) -> String {
        let extra = millis.map { #","nodeTimestampMs":\#($0)"# } ?? ""
        return
            #"{"success":true,"nodeTimestamp":\#(timestamp),"network":{"height":\#(height),"nethash":"\#(Nethash.mainnet.hex)"},"version":{"version":"0.10.3"}\#(extra)}"#
    }

    @Test(arguments: [
        (status(height: "9223372036854775807"), "9223372036854775807 is not a block height"),
        (status(height: "-5"), "-5 is not a block height"),
        (status(timestamp: "9300000000000000"), "9300000000000000 is not an ADAMANT timestamp"),
        (status(millis: "-9223372036854775808"), "-9223372036854775808 is not an ADAMANT time in milliseconds"),
    ])
    func nonsenseNumbersSetTheNodeAsideWithoutATrap(body: String, reason: String) async {
        transport.node("http://good:1")
        transport.route("http://bad:1") { _, _ in .json(body) }
        let reports = await Fixtures.pool(transport, nodes: ["http://good:1", "http://bad:1"]).checkHealth()
        #expect(reports[0].health.isUsable)
        #expect(!reports[1].health.isUsable)
        #expect(reports[1].health.description.contains(reason), "\(reports[1].health)")
    }

    /// A device clock no device has: stamping, comparing clocks and the resend window
    /// saturate instead of trapping.
    @Test(arguments: [Int64.max, .min, 0])
    func anAbsurdDeviceClockNeverTraps(unixMillis: Int64) async throws {
        let posts = ArrivalOrder()
        for node in ["http://n1:1", "http://n2:1"] {
            transport.route(node) { request, _ in
                guard request.method == .post else { return .json(FakeStatus().json) }
                return posts.take() == 0 ? .fail(.timedOut) : .nodeError("Transaction pool is full")
            }
        }
        let pool = Fixtures.pool(
            transport, nodes: ["http://n1:1", "http://n2:1"], wallClock: ManualWallClock(unixMillis: unixMillis))
        let health = await pool.checkHealth().map(\.health)
        #expect(health.allSatisfy { $0.isUsable }, "\(health)")
        let client = NodeClient(pool: pool)
        guard health.allSatisfy({ $0.canStamp }) else {
            // The device's clock is too far out to compare: reads only, and the reason says so.
            #expect(unixMillis == .min && health.allSatisfy { $0.description.contains("this device") })
            await #expect(throws: NodeError.self) { try await client.submissionTarget() }
            return
        }
        let result = try await client.submitTransfer(
            amount: 1, to: Fixtures.recipient.address, signedBy: Fixtures.sender)
        #expect(!result.outcome.isSuccess)
    }

    /// A status read a moment after it arrived (a loaded device) on a clock at the earliest
    /// instant it can show: when it arrived is worked out without trapping.
    @Test func aStatusReadLateOnTheEarliestClockNeverTraps() async {
        transport.route("http://a:1") { _, _ in .answer(body: FakeStatus().json, late: .seconds(1)) }
        let pool = Fixtures.pool(transport, nodes: ["http://a:1"], wallClock: ManualWallClock(unixMillis: .min))
        let health = await pool.checkHealth().map(\.health)
        #expect(health.allSatisfy { $0.isUsable }, "\(health)")
    }

    /// WHY says what the node did, in words: no decoder internals, no "offline" for a node
    /// that answered, and a node's own text printable on one line.
    @Test func theReasonSaysWhatTheNodeDid() async {
        transport.route("http://html:1") { _, _ in .htmlPage }
        transport.route("http://garbled:1") { _, _ in
            .json(#"{"success":true,"nodeTimestamp":1,"network":{"height":"x","nethash":"ab"}}"#)
        }
        transport.route("http://partial:1") { _, _ in .json(#"{"success":true,"nodeTimestamp":1}"#) }
        transport.route("http://notjson:1") { _, _ in .json(#"{"success":true,"nodeTimestamp":1,"#) }
        transport.route("http://escapes:1") { _, _ in
            .nodeError("Blockchain is loading\\u001b[2J\\r\\nX-Injected: yes", status: 503)
        }
        let nodes = ["http://html:1", "http://garbled:1", "http://partial:1", "http://notjson:1", "http://escapes:1"]
        let health = await Fixtures.pool(transport, nodes: nodes, nethash: .pinned(.mainnet)).checkHealth().map(
            \.health)

        #expect(health.map(\.name) == ["notANode", "badAnswer", "badAnswer", "badAnswer", "badAnswer"])
        #expect(health[0].description == "not a node: HTTP 502 with a body that is not node JSON (text/html)")
        #expect(health[1].description == "bad answer: network.height is not an integer")
        #expect(health[2].description == "bad answer: network is missing")
        // It opens as a success, so the status reader finds where the JSON breaks.
        #expect(
            health[3].description
                == "bad answer: malformed JSON at byte 34: the text ends inside the JSON: expected a key in double quotes"
        )
        #expect(health[4].description.contains(#"Blockchain is loading\u{1B}[2J\r\nX-Injected: yes"#), "\(health[4])")
        for verdict in health {
            #expect(
                !verdict.description.contains("DecodingError") && !verdict.description.contains("CodingKeys"),
                "\(verdict)")
            #expect(
                !verdict.description.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(verdict)"
            )
        }
    }

    /// Two nodes, two networks: the first listed does not win. Neither is used, and the
    /// reason says to pin the network.
    @Test func aNethashTieIsNoMajority() async throws {
        let network = try LiveNetwork(
            nodeCount: 2, faults: [(node: 0, fault: "nethash:" + String(repeating: "ab", count: 32))])
        let client = await network.client()
        let reports = client.pool.reports
        #expect(reports.allSatisfy { !$0.health.isUsable }, "\(reports.map(\.health))")
        #expect(reports.allSatisfy { $0.health.description.contains("--nethash") }, "\(reports.map(\.health))")
        await #expect(throws: NodeError.self) { try await client.height() }
        #expect(try network.requests(to: network.nodes[0], path: "/api/blocks/getHeight").isEmpty)
    }

    /// A node a year ahead of the two others is not the one that stamps.
    @Test func aClockAYearOffIsNotUsedToStamp() async throws {
        let network = try LiveNetwork(faults: [(node: 0, fault: "skew:31536000")])
        let client = await network.client()
        let skewed = client.pool.reports[0].health
        #expect(skewed.description.contains("not used to stamp transactions"), "\(skewed)")
        for _ in 0..<3 { #expect(try await client.submissionTarget().node != network.nodes[0]) }
    }
}
