import AdamantCore
import AdamantDevnet
import Testing

@testable import AdamantNodes

@Suite(.timeLimit(.minutes(1)))
struct LiveClockTests {
    /// This device's clock two minutes off, the nodes' right: a chat stamped with the nodes'
    /// clock (as the pool measured it) passes their 0.10 checks, and the same chat stamped with
    /// the device's clock does not, which shows the skew really bites.
    @Test(arguments: [120, -120] as [Int64])
    func chatsAreStampedWithTheNodesClock(deviceSkewSeconds: Int64) async throws {
        let network = try LiveNetwork()
        let device = SkewedWallClock(offsetMillis: deviceSkewSeconds * 1000)
        let client = await network.client(wallClock: device)
        #expect(client.pool.reports.allSatisfy { $0.health == .usable }, "\(client.pool.reports.map(\.health))")

        let stamped = try await network.sendChat("stamped for the node", via: client)
        #expect(stamped.outcome == .accepted(stamped.transactionID))

        let now = device.unixMillis()
        let asset = try ChatKey(secretKey: Fixtures.sender.secretKey, partner: Fixtures.recipient.publicKey).seal(
            "stamped here")
        let raw = try Transaction.chat(
            asset, to: Fixtures.recipient.address, timestamp: Int32(AdamantTime.timestamp(unixMillis: now)),
            timestampMs: AdamantTime.epochMillis(unixMillis: now), signedBy: Fixtures.sender)
        let expected: WriteOutcome =
            deviceSkewSeconds < 0
            ? .ambiguous(TimestampPolicy.Rejection.tooOld.message(under: .v0_10))
            : .clock(TimestampPolicy.Rejection.inFuture.message(under: .v0_10))
        #expect(try await client.submit(raw).outcome == expected)
    }

    /// One node's clock off from the two others: it still serves reads, but it never stamps,
    /// and the chat goes to a node whose clock agrees.
    @Test(arguments: [120, -120, 31_536_000] as [Int64])
    func aNodeWhoseClockDisagreesDoesNotStamp(skewSeconds: Int64) async throws {
        let network = try LiveNetwork(faults: [(node: 0, fault: "skew:\(skewSeconds)")])
        let client = await network.client()

        let skewed = client.pool.reports[0].health
        guard case .clockOff(let offset, .otherNodes) = skewed else {
            Issue.record("unexpected \(skewed)")
            return
        }
        #expect(abs(offset - skewSeconds * 1000) < 4_000)
        #expect(skewed.isUsable && !skewed.canStamp)
        #expect(skewed.description.contains("not used to stamp transactions"))
        #expect(client.pool.reports.dropFirst().allSatisfy { $0.health == .usable })

        let target = try await client.submissionTarget()
        #expect(target.node != network.nodes[0])
        let sent = try await network.sendChat("stamped by an agreeing clock", via: client)
        #expect(sent.outcome == .accepted(sent.transactionID) && sent.node != network.nodes[0])
    }

    /// A node alone, a year off this device's clock: there is no telling which is right, so
    /// nothing is stamped, and the verdict says why; reads still work.
    @Test func aLoneNodeFarFromTheDevicesClockDoesNotStamp() async throws {
        let network = try LiveNetwork(nodeCount: 1, faults: [(node: 0, fault: "skew:31536000")])
        let client = await network.client()

        let health = client.pool.reports[0].health
        guard case .clockOff(_, .device) = health else {
            Issue.record("unexpected \(health)")
            return
        }
        #expect(health.description.contains("this device"))
        await #expect(throws: NodeError.self) { try await client.submissionTarget() }
        #expect(try await client.height() >= 1)
    }
}

/// This device's clock, `offsetMillis` off.
struct SkewedWallClock: WallClock {
    var offsetMillis: Int64
    func unixMillis() -> Int64 { SystemWallClock().unixMillis() + offsetMillis }
}
