import AdamantDevnet
import Testing

@testable import AdamantNodes

@Suite(.timeLimit(.minutes(1)))
struct LiveHealthTests {
    /// One bad node of three, bad from the start: the health check says why, and reads go to
    /// the other two only.
    @Test(arguments: [
        ("lag:15", "outOfSync", "out of sync: height"),
        ("nethash:" + String(repeating: "ab", count: 32), "wrongNetwork", "nethash ababab"),
        ("version:0.7.9", "outdated", "version 0.7.9"),
        ("refuse", "offline", "offline: unreachable"),
    ])
    func aBadNodeIsSetAsideAndTheOthersServe(fault: String, health: String, reason: String) async throws {
        let network = try LiveNetwork(faults: [(node: 0, fault: fault)])
        for _ in 0..<20 { network.devnet.mine() }  // so 15 blocks behind is far outside the 10-block tolerance
        let client = await network.client()

        let reports = client.pool.reports
        #expect(reports[0].health.name == health)
        #expect(reports[0].health.description.contains(reason), "\(reports[0].health)")
        #expect(reports.dropFirst().allSatisfy { $0.health.isUsable })

        #expect(try await client.height() > 20)
        #expect(try network.requests(to: network.nodes[0], path: "/api/blocks/getHeight").isEmpty)
    }
}
