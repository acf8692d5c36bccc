import AdamantCore
import AdamantDevnet
@testable import AdamantNodes
import Testing

@Suite(.timeLimit(.minutes(1)))
struct LiveClockTests {
    enum Skewed: Sendable { case node, device }

    /// A node's clock or the device's two minutes off: a chat stamped with the node's clock (as
    /// the pool measured it) passes the node's 0.10 checks, and the same chat stamped with the
    /// raw device clock does not, which shows the skew really bites.
    @Test(arguments: [(Skewed.node, 120), (.node, -120), (.device, 120), (.device, -120)] as [(Skewed, Int64)])
    func chatsAreStampedWithTheNodesClock(skewed: Skewed, seconds: Int64) async throws {
        let network = try LiveNetwork(faults: skewed == .node ? [(node: 0, fault: "skew:\(seconds)")] : [])
        let deviceOffsetMillis = skewed == .device ? seconds * 1000 : 0
        let deviceClock: @Sendable () -> Int64 = { SystemClock().unixMillis() + deviceOffsetMillis }
        let client = await network.client(nodes: [network.nodes[0]]) { $0.wallClock = deviceClock }

        let stamped = try await network.sendChat("stamped for the node", via: client)
        #expect(stamped.outcome == .accepted(stamped.transactionID))

        let now = deviceClock()
        let asset = try ChatKey(secretKey: Fixtures.sender.secretKey, partner: Fixtures.recipient.publicKey).seal("stamped here")
        let raw = try Transaction.chat(
            asset, to: Fixtures.recipient.address, timestamp: Int32(AdamantTime.timestamp(unixMillis: now)),
            timestampMs: AdamantTime.epochMillis(unixMillis: now), signedBy: Fixtures.sender)
        let nodeIsAhead = (skewed == .node) == (seconds > 0)
        let expected: WriteOutcome =
            nodeIsAhead
            ? .ambiguous(TimestampPolicy.Rejection.tooOld.message(under: .v0_10))
            : .clock(TimestampPolicy.Rejection.inFuture.message(under: .v0_10))
        #expect(try await client.submit(raw).outcome == expected)
    }
}
