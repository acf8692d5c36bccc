import AdamantCore
@testable import AdamantNodes
import Foundation
import Testing

@Suite struct NodeURLTests {
    @Test(arguments: [
        ("https://Clown.Adamant.im/", "https://clown.adamant.im"),
        ("http://78.47.205.206:36666", "http://78.47.205.206:36666"),
        (" https://node.example/adm/ ", "https://node.example/adm"),
        ("http://[::1]:36666", "http://[::1]:36666"),
    ])
    func normalises(input: String, expected: String) throws {
        #expect(try NodeURL(input).description == expected)
    }

    @Test(arguments: ["clown.adamant.im", "ftp://clown.adamant.im", "https://", "http://user:secret@host", "http://host/?a=1", "http://host/#x", ""])
    func rejects(input: String) {
        #expect(throws: NodeURLError.self) { try NodeURL(input) }
    }

    @Test func endpointEncodesQuery() throws {
        let url = try NodeURL("http://127.0.0.1:36666").endpoint("/api/transactions", query: [("and:fromHeight", "5"), ("types", "0,8")])
        #expect(url == "http://127.0.0.1:36666/api/transactions?and:fromHeight=5&types=0,8")
    }
}

@Suite struct NodeStatusTests {
    let hash = Nethash.mainnet.hex

    @Test func decodes0_10Shape() throws {
        let json = #"""
        {"success":true,"nodeTimestamp":230021386,"loader":{"loaded":true,"now":1031082,"syncing":false,"consensus":100,"blocks":0,"blocksCount":0},"network":{"broadhash":"ab","epoch":"2017-09-02T17:00:00.000Z","height":1034307,"consensusCodeName":"x","fee":50000000,"milestone":0,"nethash":"\#(hash)","reward":0,"supply":9800000000000000},"consensusSchedule":{"activationHeights":{}},"milestoneSchedule":{"offset":2000000,"distance":6300000,"milestones":[]},"version":{"build":"","commit":"c32e74","version":"0.10.3"},"nodeTimestampMs":230021386123,"unixTimestampMs":1734392586123,"wsClient":{"enabled":true,"port":36668}}
        """#
        let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
        #expect(status == NodeStatus(height: 1_034_307, nethash: .mainnet, version: NodeVersion(0, 10, 3), nodeTimestamp: 230_021_386, nodeTimestampMs: 230_021_386_123))
    }

    @Test func decodes0_9Shape() throws {
        let json = #"{"success":true,"nodeTimestamp":5,"loader":{"loaded":true},"network":{"height":7,"nethash":"\#(hash)"},"version":{"build":"","commit":"","version":"0.9.0"},"wsClient":{"enabled":false}}"#
        let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
        #expect(status.version == NodeVersion(0, 9, 0) && status.nodeTimestampMs == nil && status.height == 7)
    }

    @Test func decodes0_8Shape() throws {
        let json = #"{"success":true,"nodeTimestamp":5,"network":{"height":7,"nethash":"\#(hash)"},"version":{"build":"","commit":"","version":"0.8.3"},"wsClient":{"enabled":true,"port":36668}}"#
        let status = try JSONDecoder().decode(NodeStatus.self, from: Data(json.utf8))
        #expect(status.version == NodeVersion(0, 8, 3) && status.nodeTimestamp == 5)
    }
}

@Suite struct HealthRulesTests {
    let other = Nethash(String(repeating: "ab", count: 32))!

    func status(_ height: Int64, _ nethash: Nethash = .mainnet, _ version: NodeVersion = NodeVersion(0, 10, 3)) -> Result<NodeStatus, ProbeFailure> {
        .success(NodeStatus(height: height, nethash: nethash, version: version, nodeTimestamp: 0))
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
            status(1_002, other), status(1_003, .mainnet, NodeVersion(0, 7, 9)), .failure(ProbeFailure(reason: "timed out")),
        ]
        let health = HealthRules(nethash: .pinned(.mainnet)).assess(probes)
        #expect(health == [
            .usable, .usable, .usable, .outOfSync(height: 980, agreed: 1_000...1_010),
            .wrongNetwork(other), .outdated(NodeVersion(0, 7, 9)), .offline(reason: "timed out"),
        ])
    }

    @Test func majorityNethashForUserNodes() {
        #expect(NethashRule.majority.expected(among: [other, other, .mainnet]) == other)
        #expect(NethashRule.majority.expected(among: [other, .mainnet]) == .mainnet)
        let third = Nethash(String(repeating: "cd", count: 32))!
        #expect(NethashRule.majority.expected(among: [third, other]) == third)
        #expect(NethashRule.pinned(other).expected(among: [.mainnet, .mainnet]) == other)
    }

    @Test func wrongNetworkNodesDoNotShapeTheHeightGroup() {
        let health = HealthRules(nethash: .pinned(.mainnet)).assess([status(10), status(500, other), status(501, other)])
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
