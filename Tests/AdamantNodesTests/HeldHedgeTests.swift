import AdamantCore
@testable import AdamantNodes
import Dispatch
import Synchronization
import Testing

/// `StartGate`: a hedged request held on a thread of its own until the hedge instant.
@Suite(.timeLimit(.minutes(1)))
struct StartGateTests {
    /// The gate's wait, run on a dispatch thread as a curl worker would run it.
    static func wait(at gate: StartGate) async -> StartGate.Outcome {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: gate.waitOnThread()) }
        }
    }

    @Test func opensItselfAtItsInstantAndNotBefore() async {
        let opensAt = ContinuousClock.now + .milliseconds(150)
        let gate = StartGate(opensAt: opensAt, clock: .continuous)
        #expect(await Self.wait(at: gate) == .opened)
        #expect(ContinuousClock.now >= opensAt)
        #expect(gate.openedAt != nil)
    }

    @Test func openingItEarlyReleasesTheWaiter() async {
        let gate = StartGate(opensAt: .now + .seconds(3600), clock: .continuous)
        let waiter = Task { await Self.wait(at: gate) }
        gate.open()
        #expect(await waiter.value == .opened)  // the suite's time limit fails a waiter left for the hour
        #expect(gate.openedAt != nil)
    }

    @Test func cancellingItReleasesTheWaiterAndItStaysShut() async {
        let gate = StartGate(opensAt: .now + .seconds(3600), clock: .continuous)
        let waiter = Task { await Self.wait(at: gate) }
        gate.cancel()
        #expect(await waiter.value == .cancelled)
        gate.open()
        #expect(gate.openedAt == nil)
        #expect(gate.waitOnThread() == .cancelled)
    }

    @Test func onceOpenItCannotBeCancelled() {
        let gate = StartGate(opensAt: .now + .seconds(3600), clock: .continuous)
        gate.open()
        gate.cancel()
        #expect(gate.waitOnThread() == .opened)
        #expect(gate.openedAt != nil)
    }
}

/// `CurlTransport`'s held sends against a loopback peer.
@Suite(.timeLimit(.minutes(1)))
struct CurlHeldSendTests {
    let transport = CurlTransport()

    func get(_ url: String, timeout: Duration = .seconds(10)) -> HTTPRequest {
        HTTPRequest(url: url, timeout: timeout, connectTimeout: .seconds(5))
    }

    @Test func aHeldRequestGoesOutWhenItsGateOpens() async throws {
        let server = LoopbackServer(.canned("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"))
        let opensAt = ContinuousClock.now + .milliseconds(200)
        let gate = StartGate(opensAt: opensAt, clock: .continuous)
        let answer = try await transport.send(get("http://127.0.0.1:\(server.port)/"), heldBy: gate, cutOff: .now + .seconds(30))
        #expect(answer.status == 200)
        #expect(ContinuousClock.now >= opensAt)  // the peer answers at once: only the gate made it wait
        #expect(server.requests.count == 1)
    }

    @Test func aCancelledHeldRequestSendsNothing() async throws {
        let server = LoopbackServer(.canned("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"))
        let url = "http://127.0.0.1:\(server.port)/"
        let gate = StartGate(opensAt: .now + .seconds(3600), clock: .continuous)
        let held = Task { [transport] in try await transport.send(get(url), heldBy: gate, cutOff: .now + .seconds(3600)) }
        held.cancel()
        await #expect(throws: TransportError.cancelled) { try await held.value }
        #expect(gate.openedAt == nil)
        // A request after it goes through, and is the only one the peer saw.
        #expect(try await transport.send(get(url)).status == 200)
        #expect(server.requests.count == 1)
    }

    /// The request's own timeout is 30 s; held, it counts from the opening and ends at the cut-off.
    @Test func aHeldRequestEndsAtItsCutOff() async {
        let server = LoopbackServer(.silent)
        let started = ContinuousClock.now
        let gate = StartGate(opensAt: started + .milliseconds(100), clock: .continuous)
        await #expect(throws: TransportError.timedOut) {
            try await transport.send(get("http://127.0.0.1:\(server.port)/", timeout: .seconds(30)), heldBy: gate, cutOff: started + .milliseconds(400))
        }
        let elapsed = started.duration(to: .now)
        #expect(elapsed >= .milliseconds(400))
        #expect(elapsed < .seconds(20))
    }
}

/// A scripted network that holds hedged requests the way `CurlTransport` does, on a thread of
/// its own, and notes when each gate opened.
final class HoldingScriptedTransport: HoldingHTTPTransport {
    let scripted: ScriptedTransport
    private let opened = Mutex<[(url: String, at: ContinuousClock.Instant?)]>([])

    init(_ scripted: ScriptedTransport) { self.scripted = scripted }

    /// Each held request's URL, and when its gate opened (nil: cancelled, nothing sent).
    var heldRequests: [(url: String, at: ContinuousClock.Instant?)] { opened.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        try await scripted.send(request)
    }

    func send(_ request: HTTPRequest, heldBy gate: StartGate, cutOff: ContinuousClock.Instant) async throws(TransportError) -> HTTPAnswer {
        let outcome = await withTaskCancellationHandler {
            await StartGateTests.wait(at: gate)
        } onCancel: {
            gate.cancel()
        }
        opened.withLock { $0.append((request.url, outcome == .opened ? ContinuousClock.now : nil)) }
        guard outcome == .opened else { throw .cancelled }
        var request = request
        request.timeout = min(request.timeout, ContinuousClock.now.duration(to: cutOff))
        return try await scripted.send(request)
    }
}

/// Hedged reads through a transport that can hold requests.
@Suite(.timeLimit(.minutes(1)))
struct HeldHedgeReadTests {
    let tx = Fixtures.confirmed(Fixtures.chat())
    let nodes = ["http://n1:1", "http://n2:1", "http://n3:1"]

    /// Three nodes; the k-th transaction read to arrive meets `faults[k]` (an answer after 10 ms
    /// once they run out).
    func client(_ faults: [Behavior], hedge: Duration, clock: AnyClock = .continuous) async -> (NodeClient, HoldingScriptedTransport) {
        let scripted = ScriptedTransport(clock: clock)
        let order = ArrivalOrder()
        for node in nodes {
            scripted.route(node) { [tx] _, path in
                guard path == "/api/transactions/get" else { return .json(FakeStatus().json) }
                let turn = order.take()
                return turn < faults.count ? faults[turn] : .json(Fixtures.transactionBody(tx), after: .milliseconds(10))
            }
        }
        let transport = HoldingScriptedTransport(scripted)
        var configuration = NodePool.Configuration()
        configuration.statusTimeout = .seconds(1)
        configuration.healthCheckDeadline = .seconds(30)
        configuration.requestTimeout = .seconds(20)
        configuration.hedgeDelayBounds = hedge...hedge
        let list = NodeList(endpoints: nodes.map { NodeEndpoint(url: try! NodeURL($0)) }, nethash: .majority, source: .arguments)
        let pool = NodePool(
            nodes: list, transport: transport, configuration: configuration, clock: clock,
            wallClock: ManualWallClock(unixMillis: Fixtures.unixMillis))
        await pool.checkHealth()
        return (NodeClient(pool: pool, deadline: .seconds(30)), transport)
    }

    func reads(_ transport: HoldingScriptedTransport) -> [String] {
        transport.scripted.requests(to: "/api/transactions/get").map { ScriptedTransport.split($0.url).base }
    }

    /// On a loaded machine the second node's answer may come after the third node's hedge
    /// too; each held request must still open only at its own instant (it failed once with
    /// the full suite running: the first waiter noted its opening 85 ms late).
    @Test func aSilentLeaderIsHedgedAtTheInstantByTheHeldRequest() async throws {
        let hedge = Duration.milliseconds(500)
        let (client, transport) = await client([.blackhole], hedge: hedge)
        let ranked = try await client.pool.usableNodes().get().map { ScriptedTransport.split($0.url.description).base }
        let started = ContinuousClock.now
        #expect(try await client.transaction(tx.id!) == tx)
        let held = transport.heldRequests
        try #require(!held.isEmpty)
        #expect(held.map { ScriptedTransport.split($0.url).base } == Array(ranked[1..<(1 + held.count)]))
        #expect(held[0].at.map { $0 >= started + hedge } == true)  // not before the hedge delay
        // Its instant is a hedge after the first gate opened, itself a hedge after the start.
        // (Not after `held[0].at`: that is when the first waiter ran again, late on a busy core.)
        if held.count > 1, let second = held[1].at { #expect(second >= started + hedge * 2) }
        #expect(reads(transport).prefix(2) == [ranked[0], ranked[1]])
    }

    @Test func aLeaderAnsweringInTimeLeavesNothingHeld() async throws {
        let (client, transport) = await client([], hedge: .seconds(5))
        #expect(try await client.transaction(tx.id!) == tx)
        #expect(transport.heldRequests.isEmpty)
        #expect(reads(transport).count == 1)
    }

    /// A test clock's instants are not the system's: the hedge goes the plain way, on the timer.
    @Test func onAManualClockNothingIsHeld() async throws {
        let manual = ManualClock()
        let (client, transport) = await client([.blackhole], hedge: .milliseconds(100), clock: AnyClock(manual))
        let read = Task { try await client.transaction(tx.id!) }
        await manual.waitForSleepers(3)  // the read's deadline, its hedge timer, the blackholed request
        manual.advance(by: .milliseconds(100))
        await manual.waitForSleepers(4)  // and now the next hedge timer and the second node's answer
        manual.advance(by: .milliseconds(10))
        #expect(try await read.value == tx)
        #expect(transport.heldRequests.isEmpty)
    }
}
