import AdamantCore
import Foundation
import Testing

@testable import AdamantNodes

@Suite struct NodeURLTests {
    @Test(arguments: [
        ("https://Clown.Adamant.im/", "https://clown.adamant.im"),
        ("http://78.47.205.206:36666", "http://78.47.205.206:36666"),
        (" https://node.example/adm/ ", "https://node.example/adm"),
        ("http://[::1]:36666", "http://[::1]:36666"),
        ("HTTPS://Node.Example:443/A%2Fb//", "https://node.example:443/A%2Fb"),
        ("http://127.0.0.1:1", "http://127.0.0.1:1"),
        ("http://n:65535/", "http://n:65535"),
        // A name with trailing dots is the same name: libcurl and the resolver see through them.
        ("http://Node.Example.:80/", "http://node.example:80"),
        (
            "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion..",
            "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"
        ),
    ])
    func normalises(input: String, expected: String) throws {
        #expect(try NodeURL(input).description == expected)
    }

    @Test(arguments: [
        ("clown.adamant.im", "malformed"), ("ftp://clown.adamant.im", "unsupportedScheme"), ("https://", "missingHost"),
        ("http://user:secret@host", "credentials"), ("http://@host", "credentials"),
        ("http://host/?a=1", "queryOrFragment"),
        ("http://host?a", "queryOrFragment"), ("http://host/#x", "queryOrFragment"), ("", "malformed"),
        ("://host", "malformed"),
        ("1http://host", "malformed"), ("http://host:0", "malformed"), ("http://host:65536", "malformed"),
        ("http://host:99999999999999999999", "malformed"), ("http://host:", "malformed"),
        ("http://host:8a", "malformed"),
        ("http://ho st", "malformed"), ("http://host/a b", "malformed"), ("http://host/%zz", "malformed"),
        ("http://host/%4", "malformed"),
        ("http://[::1", "malformed"), ("http://[]", "malformed"), ("http://[::g]", "malformed"),
        ("http://[::1]x", "malformed"),
        ("http://:80", "malformed"), ("http://hést", "malformed"), ("http://.", "malformed"),
        ("http://..:80", "malformed"),
        // libcurl decodes escapes in a host, so they could hide what the name is.
        ("http://x%2Eonion", "malformed"), ("http://x.onion%2e", "malformed"),
    ])
    func rejects(input: String, reason: String) {
        #expect(throws: NodeURLError.self) { try NodeURL(input) }
        do { _ = try NodeURL(input) } catch { #expect(Self.caseName(error) == reason, "\(error)") }
    }

    private static func caseName(_ error: NodeURLError) -> String {
        switch error {
        case .malformed: "malformed"
        case .unsupportedScheme: "unsupportedScheme"
        case .missingHost: "missingHost"
        case .credentials: "credentials"
        case .queryOrFragment: "queryOrFragment"
        }
    }

    @Test func endpointEncodesQuery() throws {
        let url = try NodeURL("http://127.0.0.1:36666").endpoint(
            "/api/transactions", query: [("and:fromHeight", "5"), ("types", "0,8")])
        #expect(url == "http://127.0.0.1:36666/api/transactions?and:fromHeight=5&types=0,8")
    }

    /// The socket is on the node's host at `wsClient.port` over http, and behind the node's own
    /// origin over https.
    @Test func theSocketIsPlacedAsTheIOSAppPlacesIt() throws {
        #expect(try NodeURL("http://185.231.245.26:36666").socketOrigin(port: 36668) == "http://185.231.245.26:36668")
        #expect(try NodeURL("http://[::1]:1/").socketOrigin(port: 2) == "http://[::1]:2")
        #expect(try NodeURL("http://node.example").socketOrigin(port: 3) == "http://node.example:3")
        #expect(try NodeURL("https://clown.adamant.im/api").socketOrigin(port: 36668) == "https://clown.adamant.im")
    }

    /// What could end or split a query item is escaped, UTF-8 byte by byte; the rest is kept.
    @Test func endpointEscapesWhatWouldSplitAQueryItem() throws {
        let url = try NodeURL("http://127.0.0.1:36666").endpoint(
            "/api/states/get", query: [("key", "a b&c=d+e?f#g%h\u{e9}"), ("x", "~_.-!$'()*,;:@/")])
        #expect(
            url == "http://127.0.0.1:36666/api/states/get?key=a%20b%26c%3Dd%2Be%3Ff%23g%25h%C3%A9&x=~_.-!$'()*,;:@/")
    }
}

@Suite struct NodeStatusTests {
    let hash = Nethash.mainnet.hex

    @Test func decodes0_10Shape() throws {
        let json = #"""
            {"success":true,"nodeTimestamp":230021386,"loader":{"loaded":true,"now":1031082,"syncing":false,"consensus":100,"blocks":0,"blocksCount":0},"network":{"broadhash":"ab","epoch":"2017-09-02T17:00:00.000Z","height":1034307,"consensusCodeName":"x","fee":50000000,"milestone":0,"nethash":"\#(hash)","reward":0,"supply":9800000000000000},"consensusSchedule":{"activationHeights":{}},"milestoneSchedule":{"offset":2000000,"distance":6300000,"milestones":[]},"version":{"build":"","commit":"c32e74","version":"0.10.3"},"nodeTimestampMs":230021386123,"unixTimestampMs":1734392586123,"wsClient":{"enabled":true,"port":36668}}
            """#
        let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
        #expect(
            status
                == NodeStatus(
                    height: 1_034_307, nethash: .mainnet, version: NodeVersion(0, 10, 3), nodeTimestamp: 230_021_386,
                    nodeTimestampMs: 230_021_386_123, socketPort: 36668))
    }

    /// A socket said wrongly costs only the socket: the node is still usable, and polled.
    @Test(arguments: [
        (#"{"enabled":true,"port":36668}"#, UInt16?(36668)), (#"{"enabled":false}"#, nil), (#"{"enabled":true}"#, nil),
        (#"{"enabled":true,"port":0}"#, nil), (#"{"enabled":true,"port":65536}"#, nil),
        (#"{"enabled":"yes","port":1}"#, nil), ("7", nil),
    ])
    func theSocketPortIsReadWhenEnabledAndInRange(_ wsClient: String, _ port: UInt16?) throws {
        let json =
            #"{"nodeTimestamp":5,"network":{"height":7,"nethash":"\#(hash)"},"version":{"version":"0.10.3"},"wsClient":\#(wsClient)}"#
        #expect(try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8)).socketPort == port)
    }

    @Test func decodes0_9Shape() throws {
        let json =
            #"{"success":true,"nodeTimestamp":5,"loader":{"loaded":true},"network":{"height":7,"nethash":"\#(hash)"},"version":{"build":"","commit":"","version":"0.9.0"},"wsClient":{"enabled":false}}"#
        let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
        #expect(status.version == NodeVersion(0, 9, 0) && status.nodeTimestampMs == nil && status.height == 7)
    }

    /// Numbers a node sends are range-checked while decoding, so nothing computes with them.
    @Test(
        arguments: [
            ("9223372036854775807", "1000", nil, "network.height: 9223372036854775807 is not a block height"),
            ("-5", "1000", nil, "network.height: -5 is not a block height"),
            ("0", "1000", nil, "network.height: 0 is not a block height"),
            ("1e30", "1000", nil, "malformed JSON or an out-of-range number"),
            ("\"12\"", "1000", nil, "network.height is not an integer"),
            ("7", "9300000000000000", nil, "nodeTimestamp: 9300000000000000 is not an ADAMANT timestamp"),
            ("7", "-1", nil, "nodeTimestamp: -1 is not an ADAMANT timestamp"),
            ("7", "1000", "-9223372036854775808", "nodeTimestampMs: -9223372036854775808 is not an ADAMANT time"),
            ("7", "1000", "9223372036854775807", "nodeTimestampMs: 9223372036854775807 is not an ADAMANT time"),
            ("7", "1000", "1002000", "nodeTimestampMs: 1002000 ms disagrees with nodeTimestamp 1000 s"),
        ] as [(String, String, String?, String)])
    func implausibleNumbersAreRefused(height: String, timestamp: String, millis: String?, reason: String) {
        let extra = millis.map { #","nodeTimestampMs":\#($0)"# } ?? ""
        let json =
            #"{"success":true,"nodeTimestamp":\#(timestamp),"network":{"height":\#(height),"nethash":"\#(hash)"},"version":{"version":"0.10.3"}\#(extra)}"#
        do {
            let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
            Issue.record("decoded \(status)")
        } catch {
            #expect(AnswerText.decoding(error).hasPrefix(reason), "\(AnswerText.decoding(error))")
            #expect(!AnswerText.decoding(error).contains("DecodingError"))
        }
    }

    @Test func decodes0_8Shape() throws {
        let json =
            #"{"success":true,"nodeTimestamp":5,"network":{"height":7,"nethash":"\#(hash)"},"version":{"build":"","commit":"","version":"0.8.3"},"wsClient":{"enabled":true,"port":36668}}"#
        let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
        #expect(status.version == NodeVersion(0, 8, 3) && status.nodeTimestamp == 5)
    }
}

@Suite struct HealthRulesTests {
    let other = Nethash(String(repeating: "ab", count: 32))!

    let url = try! NodeURL("http://n:1")

    func status(
        _ height: Int64, _ nethash: Nethash = .mainnet, _ version: NodeVersion = NodeVersion(0, 10, 3),
        clockDelta: Int64 = 0
    ) -> StatusProbe {
        StatusProbe(
            url: url,
            result: .success(NodeStatus(height: height, nethash: nethash, version: version, nodeTimestamp: 0)),
            clock: NodeClock(deltaMillis: clockDelta))
    }

    func failed(_ kind: NodeFailure.Kind) -> StatusProbe {
        StatusProbe(url: url, result: .failure(ProbeFailure(kind: kind)))
    }

    @Test func agreedHeightsIsTheLargestWindowTiesToTheHigher() {
        #expect(HealthRules.agreedHeights([100, 101, 109, 130], tolerance: 10) == 100...110)
        #expect(HealthRules.agreedHeights([100, 105, 112], tolerance: 10) == 105...115)
        #expect(HealthRules.agreedHeights([50, 200], tolerance: 10) == 200...210)
        #expect(HealthRules.agreedHeights([], tolerance: 10) == nil)
    }

    @Test func everyReasonInOneCheck() {
        let probes = [
            status(1_000), status(1_004), status(1_010), status(980),
            status(1_002, other), status(1_003, .mainnet, NodeVersion(0, 7, 9)), failed(.noAnswer(.timedOut)),
            failed(.notANode("HTTP 404 with a body that is not node JSON")),
            failed(.badAnswer("network.height is missing")),
            failed(.nodeError(message: "", status: 503)),
        ]
        let health = HealthRules(nethash: .pinned(.mainnet)).assess(probes)
        #expect(
            health == [
                .usable, .usable, .usable, .outOfSync(height: 980, agreed: 1_000...1_010),
                .wrongNetwork(other), .outdated(NodeVersion(0, 7, 9)), .offline(reason: "timed out"),
                .notANode(reason: "HTTP 404 with a body that is not node JSON"),
                .badAnswer(reason: "network.height is missing"),
                .badAnswer(reason: "the node answered with an error (HTTP 503): no message"),
            ])
    }

    @Test func majorityNethashForUserNodes() {
        #expect(NethashRule.majority.expected(among: [other, other, .mainnet]) == other)
        #expect(NethashRule.majority.expected(among: [other]) == other)
        #expect(NethashRule.pinned(other).expected(among: [.mainnet, .mainnet]) == other)
    }

    /// A tie is not a majority, whatever the order and even with mainnet in it: a hostile node
    /// listed first must not choose the network.
    @Test func aTieOnTheNethashIsNoMajority() {
        let third = Nethash(String(repeating: "cd", count: 32))!
        #expect(NethashRule.majority.expected(among: [third, other]) == nil)
        #expect(NethashRule.majority.expected(among: [other, .mainnet]) == nil)
        #expect(NethashRule.majority.expected(among: [.mainnet, other, other, .mainnet]) == nil)

        let health = HealthRules(nethash: .majority).assess([
            status(10, other), status(10, .mainnet), failed(.noAnswer(.timedOut)),
        ])
        #expect(health[0] == .noMajorityNetwork(other) && health[1] == .noMajorityNetwork(.mainnet))
        #expect(!health[0].isUsable && health[0].description.contains("--nethash"))
        #expect(
            HealthRules(nethash: .pinned(other)).assess([status(10, other), status(10, .mainnet)]).map(\.isUsable) == [
                true, false,
            ])
    }

    /// delta = local − node, so a node a year ahead has a delta of minus a year.
    @Test func aClockThatDisagreesWithTheOthersDoesNotStamp() {
        let year: Int64 = 31_536_000_000
        let health = HealthRules(nethash: .pinned(.mainnet)).assess([
            status(10, clockDelta: 0), status(10, clockDelta: 100), status(10, clockDelta: -200),
            status(10, clockDelta: -year),
        ])
        #expect(health == [.usable, .usable, .usable, .clockOff(offsetMillis: year, reference: .otherNodes)])
        #expect(health[3].isUsable && !health[3].canStamp)
        #expect(health[3].description == "clock 31536000.0 s ahead of the other nodes: not used to stamp transactions")
    }

    /// Nodes that agree with each other outvote this device's clock; a node alone does not.
    @Test func theDevicesClockCountsOnlyWhenANodeIsAlone() {
        let rules = HealthRules(nethash: .pinned(.mainnet))
        #expect(
            rules.assess([
                status(10, clockDelta: 120_000), status(10, clockDelta: 120_400), status(10, clockDelta: 119_900),
            ])
            .allSatisfy { $0 == .usable })
        #expect(rules.assess([status(10, clockDelta: 3_000)]) == [.usable])
        #expect(
            rules.assess([status(10, clockDelta: 120_000)]) == [.clockOff(offsetMillis: -120_000, reference: .device)])
        // Two nodes a minute apart: the one nearer this device's clock stamps.
        #expect(
            rules.assess([status(10, clockDelta: 60_000), status(10, clockDelta: 1_000)])
                == [.clockOff(offsetMillis: -59_000, reference: .otherNodes), .usable])
    }

    @Test func extremeInputsNeverTrap() {
        #expect(HealthRules.agreedHeights([.max, .min, 0], tolerance: .max) != nil)
        #expect(HealthRules.agreedHeights([5], tolerance: -3) == 5...5)
        let clocks = HealthRules.trustedClocks([.max, .min, 0], tolerance: .max)
        #expect(clocks != nil)
        let health = HealthRules(nethash: .pinned(.mainnet)).assess([
            status(10, clockDelta: .max), status(10, clockDelta: .min),
        ])
        #expect(health.count == 2)
    }

    @Test func wrongNetworkNodesDoNotShapeTheHeightGroup() {
        let health = HealthRules(nethash: .pinned(.mainnet)).assess([
            status(10), status(500, other), status(501, other),
        ])
        #expect(health[0] == .usable)
    }

    @Test func latencyAverageWeighsRecentSamples() throws {
        var average = LatencyAverage()
        average.add(.milliseconds(100))
        #expect(average.value == .milliseconds(100))
        average.add(.milliseconds(200))
        let value = try #require(average.value)
        #expect(value > .microseconds(129_999) && value < .microseconds(130_001))
    }
}
