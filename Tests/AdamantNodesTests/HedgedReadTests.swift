import AdamantCore
import Testing

@testable import AdamantNodes

@Suite struct HedgedReadTests {
    let transport = ScriptedTransport()
    let tx = Fixtures.confirmed(Fixtures.chat())
    var id: TransactionID { tx.id! }

    /// Three healthy nodes; the k-th transaction read to arrive, whichever node gets it,
    /// meets `faults[k]` (a healthy answer after 10 ms once they run out). Tests that count
    /// reads pass a `hedge` no busy machine reaches, so only failures move a read on. The
    /// deadline is one no busy machine reaches either: a full run on a loaded machine once
    /// took 3 s for a read that fails over, and a read cut short by its deadline proves nothing
    /// these tests are about (its timing is `theDeadlineHoldsWhateverTheNodesDo`'s).
    func client(
        _ faults: [Behavior] = [], deadline: Duration = .seconds(20),
        hedge: ClosedRange<Duration> = .milliseconds(50) ... .milliseconds(200),
        requestTimeout: Duration = .seconds(2)
    ) async -> NodeClient {
        let order = ArrivalOrder()
        for node in ["http://n1:1", "http://n2:1", "http://n3:1"] {
            transport.route(node) { [tx] _, path in
                guard path == "/api/transactions/get" else { return .json(FakeStatus().json) }
                let turn = order.take()
                return turn < faults.count
                    ? faults[turn] : .json(Fixtures.transactionBody(tx), after: .milliseconds(10))
            }
        }
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1", "http://n2:1", "http://n3:1"]) {
            $0.hedgeDelayBounds = hedge
            $0.requestTimeout = requestTimeout
        }
        await pool.checkHealth()
        return NodeClient(pool: pool, deadline: deadline)
    }

    var reads: [HTTPRequest] { transport.requests(to: "/api/transactions/get") }

    static let noHedge = Duration.seconds(30) ... .seconds(30)

    @Test func blackholeThenGarbageThenHealthy() async throws {
        let client = await client([.blackhole, .json(#"{"success":tru"#)])
        #expect(try await client.transaction(id) == tx)
        #expect(Set(reads.map { ScriptedTransport.split($0.url).base }).count == 3)
    }

    /// One run, two reads: with the best node blackholed the read may cost the hedge delay
    /// plus a few healthy reads, never a timeout.
    @Test func hedgingCostsTheDelayNotATimeout() async throws {
        let healthy = await client()
        let clock = ContinuousClock()
        let healthyTime = try await clock.measure { _ = try await healthy.transaction(id) }

        // A timeout far beyond any load, so only a hedge can end the read in time.
        let degraded = await client([.blackhole], deadline: .seconds(60), requestTimeout: .seconds(30))
        let leader = try await degraded.pool.usableNodes().get()[0]
        let hedge = degraded.pool.hedgeDelay(after: leader)
        let degradedTime = try await clock.measure { _ = try await degraded.transaction(id) }
        // Room for a loaded machine (2 s seen on a full run, whose blocking tests hold the
        // cooperative threads), still far short of the timeout.
        #expect(degradedTime < hedge + healthyTime * 4 + .seconds(5))
    }

    @Test(arguments: [
        Behavior.htmlPage,
        .answer(status: 403, body: "Forbidden", contentType: "text/plain"),
        .answer(status: 429, body: "Too many requests", contentType: "text/plain"),
        .answer(status: 500, body: #"{"success":false,"error":"API endpoint not found"}"#),
        .nodeError("Blockchain is loading"),
        .json(#"{"success":true,"nodeTimestamp":1,"transaction":{"id":"1"}}"#),
        .fail(.unreachable("connection refused")),
    ])
    func failsOverOn(_ fault: Behavior) async throws {
        let client = await client([fault], hedge: Self.noHedge)
        #expect(try await client.transaction(id) == tx)
        #expect(reads.count == 2)
    }

    @Test func tamperedTransactionFailsVerificationAndTheNextNodeAnswers() async throws {
        let client = await client([.json(Fixtures.transactionBody(Fixtures.tampered(tx)))], hedge: Self.noHedge)
        #expect(try await client.transaction(id) == tx)
        #expect(reads.count == 2)
    }

    @Test func anotherValidTransactionIsNotTheOneAskedFor() async throws {
        let other = Fixtures.confirmed(Fixtures.chat(text: 9))
        let client = await client([.json(Fixtures.transactionBody(other))])
        #expect(try await client.transaction(id) == tx)
    }

    @Test func aCallerHookCanRejectAnswers() async throws {
        var client = await client(hedge: Self.noHedge)
        client.verify = { _ in throw AnswerRejection(description: "not today") }
        let error = await #expect(throws: NodeError.self) { try await client.transaction(id) }
        #expect(reads.count == 3)
        // Every node answered, and every answer failed the check: unverifiable data (exit 65).
        #expect(error?.everyAnswerFailedVerification == true)
        guard case .allNodesFailed(let failures)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(
            failures.allSatisfy {
                $0.kind == .unverifiable("not today") && $0.reason == "failed verification: not today"
            })
    }

    /// Typed kinds tell "nothing usable came back" (exit 69) from "what came back was forged" (65).
    @Test func failureKindsSayWhatEachNodeDid() async {
        let tampered = Behavior.json(Fixtures.transactionBody(Fixtures.tampered(tx)))
        let forged = await #expect(throws: NodeError.self) {
            try await client([.fail(.unreachable("connection refused")), tampered, tampered]).transaction(id)
        }
        #expect(forged?.everyAnswerFailedVerification == true)

        let mixed = await #expect(throws: NodeError.self) {
            try await client([tampered, .htmlPage, .json(#"{"success":true,"nodeTimestamp":1}"#)]).transaction(id)
        }
        #expect(mixed?.everyAnswerFailedVerification == false)
        guard case .allNodesFailed(let failures)? = mixed else {
            Issue.record("unexpected \(String(describing: mixed))")
            return
        }
        let kinds = Set(failures.map { "\($0.kind)".prefix(while: { $0 != ":" }) })
        #expect(kinds == ["failed verification", "not a node", "bad answer"], "\(failures)")
    }

    @Test func notFoundIsAnAnswer() async throws {
        let client = await client([.nodeError("Transaction not found")], hedge: Self.noHedge)
        #expect(try await client.transaction(id) == nil)
        #expect(reads.count == 1)
    }

    @Test func aConsideredRefusalEndsTheRead() async {
        let client = await client(
            [.nodeError("Failed to get transactions: Invalid limit. Maximum is 100")], hedge: Self.noHedge)
        do {
            _ = try await client.transaction(id)
            Issue.record("expected a refusal")
        } catch {
            guard case .refused(let message, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(message == "Failed to get transactions: Invalid limit. Maximum is 100")
        }
        #expect(reads.count == 1)
    }

    @Test func everyNodeDownFailsFastWithEachReason() async {
        let down = Behavior.fail(.unreachable("connection refused"))
        // Fast is a sixth of a deadline no loaded machine reaches (5.2 s seen at load 8).
        let client = await client([down, down, down], deadline: .seconds(120))
        let started = ContinuousClock.now
        do {
            _ = try await client.transaction(id)
            Issue.record("expected a failure")
        } catch {
            guard case .allNodesFailed(let failures) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failures.map(\.node.description).sorted() == ["http://n1:1", "http://n2:1", "http://n3:1"])
            #expect(failures.allSatisfy { $0.kind == .noAnswer(.unreachable("connection refused")) })
            #expect(!error.everyAnswerFailedVerification)
        }
        #expect(started.duration(to: .now) < client.deadline / 6)
    }

    /// A request timeout far past the bound, so only the deadline can end the read in time;
    /// the bound leaves room for a loaded machine (2.2 s seen for a 400 ms deadline).
    @Test(.timeLimit(.minutes(1))) func theDeadlineHoldsWhateverTheNodesDo() async {
        let client = await client(
            [.blackhole, .blackhole, .blackhole], deadline: .milliseconds(400), requestTimeout: .seconds(30))
        let started = ContinuousClock.now
        do {
            _ = try await client.transaction(id)
            Issue.record("expected the deadline")
        } catch {
            guard case .deadlineExceeded = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        // exact on a manual clock: PoolTimingTests
        #expect(started.duration(to: .now) < .milliseconds(400) + .seconds(10))
    }

    @Test(.timeLimit(.minutes(1))) func cancellationStopsARead() async {
        let client = await client([.blackhole, .blackhole, .blackhole], deadline: .seconds(30))
        let read = Task { try await client.transaction(id) }
        #expect(await eventually { !reads.isEmpty }, "the read reached a node")
        read.cancel()
        await #expect(throws: NodeError.cancelled) { try await read.value }
    }

    /// The read does not wait for it, so the check is awaited here: exactly one more check of
    /// every node, and only after the failed reads.
    @Test(.timeLimit(.minutes(1))) func aReadThatFailsEverywhereTriggersAHealthCheck() async {
        let down = Behavior.fail(.timedOut)
        let client = await client([down, down, down])
        let statusPath = "/api/node/status"
        #expect(transport.requests(to: statusPath).count == 3)
        _ = try? await client.transaction(id)

        #expect(await eventually { transport.requests(to: statusPath).count >= 6 })
        #expect(transport.requests(to: statusPath).count == 6)
        let paths = transport.requests.map { ScriptedTransport.split($0.url).path }
        let lastRead = paths.lastIndex(of: "/api/transactions/get") ?? paths.endIndex
        #expect(paths[lastRead...].count { $0 == statusPath } == 3)
    }
}
