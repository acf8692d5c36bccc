import AdamantCore
import Foundation
import Testing

@testable import AdamantNodes

@Suite struct SubmitTests {
    let transport = ScriptedTransport()
    let wallClock = ManualWallClock(unixMillis: Fixtures.unixMillis)

    /// Three nodes; the k-th POST to arrive, whichever node gets it, meets `answers[k]`
    /// (no answer at all once they run out). `status` is every node's status.
    func client(_ answers: [@Sendable (HTTPRequest) -> Behavior], status: FakeStatus = FakeStatus()) async -> NodeClient
    {
        let order = ArrivalOrder()
        for node in ["http://n1:1", "http://n2:1", "http://n3:1"] {
            transport.route(node) { request, path in
                guard request.method == .post else { return .json(status.json) }
                let turn = order.take()
                return turn < answers.count ? answers[turn](request) : .fail(.unreachable("connection refused"))
            }
        }
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1", "http://n2:1", "http://n3:1"], wallClock: wallClock)
        await pool.checkHealth()
        return NodeClient(pool: pool)
    }

    var posts: [HTTPRequest] { transport.requests.filter { $0.method == .post } }

    @Test func noAnswerSendsTheSameBytesToTheNextNode() async throws {
        let tx = Fixtures.transfer()
        let client = await client([{ _ in .fail(.timedOut) }, { _ in Fixtures.accepted(tx.id!) }])
        let result = try await client.submit(tx)
        #expect(result.outcome == .accepted(tx.id!) && result.node == result.attempts.last)
        #expect(result.attempts.count == 2 && Set(result.attempts).count == 2)
        let body = try tx.submissionBody()
        #expect(posts.count == 2 && posts[0].body == body && posts[1].body == body)
        #expect(posts[0].url.hasSuffix("/api/transactions/process"))
    }

    @Test(arguments: [
        (Behavior.answer(status: 500, body: #"{"success":false,"error":"API error: socket hang up"}"#), "ambiguous"),
        (.nodeError("Transaction pool is full"), "tryElsewhere"),
        (.nodeError("Failed to verify signature"), "rejected"),
        (.nodeError("Transaction timestamp is in the future"), "clock"),
        (.htmlPage, "ambiguous"),
    ])
    func anyHTTPAnswerIsClassifiedNeverResent(answer: Behavior, expected: String) async throws {
        let tx = Fixtures.chat()
        let client = await client([{ _ in answer }, { _ in Fixtures.accepted(tx.id!) }])
        let result = try await client.submit(tx)
        #expect("\(result.outcome)".hasPrefix(expected == "tryElsewhere" ? "try elsewhere" : expected))
        #expect(posts.count == 1 && posts[0].url.hasSuffix("/api/chats/process"))
    }

    @Test func alreadyProcessedWithOurIDIsApplied() async throws {
        let tx = Fixtures.chat()
        let client = await client([{ _ in .nodeError("Transaction is already processed: \(tx.id!)") }])
        let result = try await client.submit(tx, isResend: true)
        #expect(result.outcome == .applied(tx.id!, message: "Transaction is already processed: \(tx.id!)"))
    }

    @Test func aResentChatStaysInsideItsTimestampWindow() async throws {
        let tx = Fixtures.chat()
        let client = await client([
            { [wallClock] _ in
                // no answer, and time passed: past the window at any slot alignment
                wallClock.advance(byMillis: 10_000)
                return .fail(.timedOut)
            },
            { _ in Fixtures.accepted(tx.id!) },
        ])
        let result = try await client.submit(tx)
        guard case .ambiguous(let reason) = result.outcome else {
            Issue.record("unexpected \(result.outcome)")
            return
        }
        #expect(reason.contains("timestamp window has closed"))
        #expect(posts.count == 1)
    }

    @Test func aTransferHasNoPastWindow() async throws {
        let tx = Fixtures.transfer()
        let client = await client([
            { [wallClock] _ in
                wallClock.advance(byMillis: 60_000)
                return .fail(.timedOut)
            },
            { _ in Fixtures.accepted(tx.id!) },
        ])
        #expect(try await client.submit(tx).outcome == .accepted(tx.id!))
    }

    @Test func noAnswerAnywhereIsAmbiguous() async throws {
        let tx = Fixtures.transfer()
        let client = await client([])
        let result = try await client.submit(tx)
        guard case .ambiguous = result.outcome else {
            Issue.record("unexpected \(result.outcome)")
            return
        }
        #expect(result.attempts.count == 3 && result.node == nil)
    }

    @Test func avoidedNodesAreSkipped() async throws {
        let tx = Fixtures.transfer()
        let client = await client([{ _ in Fixtures.accepted(tx.id!) }])
        let avoided = try NodeURL("http://n1:1")
        let result = try await client.submit(tx, avoiding: [avoided])
        #expect(result.attempts.count == 1 && !result.attempts.contains(avoided))
    }

    /// A device clock 5 minutes fast and a node clock 120 s slow: the transaction is stamped
    /// on the node's clock, so the node's own 0.10 rules accept it.
    @Test(arguments: [-120_000, 120_000] as [Int64])
    func stampedWithTheTargetNodesClock(nodeSkewMillis: Int64) async throws {
        wallClock.advance(byMillis: 300_000)
        let nodeNow = Fixtures.nodeEpochMillis + nodeSkewMillis
        let recorded = Recorder()
        let client = await client([{ _ in Fixtures.accepted(recorded.id!) }], status: FakeStatus(epochMillis: nodeNow))

        let asset = ChatAsset(message: [1, 2, 3], nonce: [UInt8](repeating: 4, count: 24), type: .message)
        let result = try await client.submitChat(asset, to: Fixtures.recipient.address, signedBy: Fixtures.sender) {
            tx in
            #expect(self.posts.isEmpty)  // recorded before anything is sent
            recorded.id = tx.id
        }
        #expect(result.outcome == .accepted(recorded.id!))
        let sent = try #require(recorded.id.flatMap { _ in posts.first?.body })
        let tx = try Fixtures.submitted(sent)
        #expect(
            TimestampPolicy.v0_10.check(
                type: .chat, timestamp: Int64(tx.timestamp), timestampMs: tx.timestampMs, nowEpochMillis: nodeNow)
                == nil)
        #expect(tx.timestampMs.map { $0 <= nodeNow } == true)
    }

    @Test func olderNodesGetNoTimestampMs() async throws {
        let client = await client([], status: FakeStatus(version: "0.9.0", reportsMillis: false))
        let target = try await client.submissionTarget()
        #expect(target.stamp(localUnixMillis: wallClock.unixMillis()).timestampMs == nil)
    }
}

/// Lets a test closure hand a value back out.
final class Recorder: @unchecked Sendable {
    var id: TransactionID?
}
