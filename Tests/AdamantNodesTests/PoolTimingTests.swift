import AdamantCore
import Synchronization
import Testing

@testable import AdamantNodes

/// The pool's timing policies on a `ManualClock`: hedging delay, read and health-check
/// deadlines, monitor intervals. Time moves only when a test moves it, so each bound is exact
/// and nothing depends on how busy the machine is.
@Suite(.timeLimit(.minutes(1)))
struct PoolTimingTests {
    let manual = ManualClock()
    let clock: AnyClock
    let transport: ScriptedTransport
    let tx = Fixtures.confirmed(Fixtures.chat())

    init() {
        clock = AnyClock(manual)
        transport = ScriptedTransport(clock: clock)
    }

    var reads: [HTTPRequest] { transport.requests(to: "/api/transactions/get") }

    /// Nodes whose k-th transaction read meets `faults[k]` (an immediate answer once they run out).
    func client(nodes: Int, _ faults: [Behavior], deadline: Duration, hedge: Duration = .milliseconds(100)) async
        -> NodeClient
    {
        let order = ArrivalOrder()
        let urls = (1...nodes).map { "http://n\($0):1" }
        for url in urls {
            transport.route(url) { [tx] _, path in
                guard path == "/api/transactions/get" else { return .json(FakeStatus().json) }
                let turn = order.take()
                return turn < faults.count ? faults[turn] : .json(Fixtures.transactionBody(tx))
            }
        }
        let pool = Fixtures.pool(transport, nodes: urls, clock: clock) { $0.hedgeDelayBounds = hedge...hedge }
        await pool.checkHealth()
        return NodeClient(pool: pool, deadline: deadline)
    }

    @Test func theHedgeFiresAfterItsDelayAndNotBefore() async throws {
        let client = await client(nodes: 2, [.blackhole], deadline: .seconds(5))
        let started = manual.now
        let read = Task { [tx] in try await client.transaction(tx.id!) }

        await manual.waitForSleepers(3)  // the read's deadline, the silent request, the hedge timer
        manual.advance(by: .milliseconds(99))
        #expect(manual.sleeperCount == 3 && reads.count == 1)
        manual.advance(by: .milliseconds(1))

        #expect(try await read.value == tx)
        #expect(reads.count == 2)
        #expect(started.duration(to: manual.now) == .milliseconds(100))
    }

    @Test func everyNodeSilentEndsExactlyAtTheDeadline() async throws {
        let client = await client(
            nodes: 3, [.blackhole, .blackhole, .blackhole], deadline: .milliseconds(400), hedge: .milliseconds(50))
        let done = Flag()
        let read = Task { [tx] in
            defer { done.set() }
            return try await client.transaction(tx.id!)
        }

        await manual.waitForSleepers(3)
        manual.advance(by: .milliseconds(50))  // the first hedge: the second node too
        await manual.waitForSleepers(4)
        manual.advance(by: .milliseconds(50))  // the second hedge: the third node, no more timers
        await manual.waitForSleepers(4)
        #expect(reads.count == 3)
        manual.advance(by: .milliseconds(299))
        #expect(manual.sleeperCount == 4 && !done.isSet)

        manual.advance(by: .milliseconds(1))
        do {
            _ = try await read.value
            Issue.record("expected the deadline")
        } catch {
            guard case .deadlineExceeded = error as? NodeError else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(manual.now.offset == .milliseconds(400))
    }

    /// One deadline for a whole health check: silent nodes are offline when it passes, and
    /// nobody waits for the status timeout.
    @Test func aHealthCheckEndsAtItsDeadline() async {
        transport.route("http://silent1:1") { _, _ in .blackhole }
        transport.route("http://silent2:1") { _, _ in .fail(.timedOut, after: .seconds(60)) }
        let pool = Fixtures.pool(transport, nodes: ["http://silent1:1", "http://silent2:1"], clock: clock) {
            $0.statusTimeout = .seconds(3)
            $0.healthCheckDeadline = .milliseconds(700)
        }
        let check = Task { await pool.checkHealth() }
        await manual.waitForSleepers(3)  // the check's deadline and the two silent probes
        manual.advance(by: .milliseconds(699))
        #expect(manual.sleeperCount == 3)
        manual.advance(by: .milliseconds(1))
        let health = await check.value.map(\.health)
        #expect(health == [.offline(reason: "timed out"), .offline(reason: "timed out")])
        #expect(manual.now.offset == .milliseconds(700))
    }

    @Test func monitorRechecksEveryIntervalAndSoonerWhileNothingIsUsable() async {
        let isDown = Flag()
        transport.route("http://n1:1") { _, _ in
            isDown.isSet ? .fail(.unreachable("connection refused")) : .json(FakeStatus().json)
        }
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1"], clock: clock)
        var checks: Int { transport.requests(to: "/api/node/status").count }
        let start = manual.now

        let monitor = Task { await pool.monitor(every: .seconds(300), retryInterval: .seconds(30)) }
        #expect(await eventually { manual.pendingDeadlines == [start + .seconds(300)] })
        manual.advance(by: .seconds(299))
        #expect(checks == 1)
        manual.advance(by: .seconds(1))
        #expect(await eventually { manual.pendingDeadlines == [start + .seconds(600)] })
        #expect(checks == 2)

        isDown.set()
        manual.advance(by: .seconds(300))
        #expect(await eventually { manual.pendingDeadlines == [start + .seconds(630)] }, "\(manual.pendingDeadlines)")
        #expect(checks == 3)
        monitor.cancel()
        await monitor.value
    }
}

/// Set once, from any thread.
final class Flag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Through a proxy the hedge delay still follows the measured latency, from the same floor,
/// up to a ceiling a circuit's seconds fit under; direct, a second caps it.
@Suite(.timeLimit(.minutes(1)))
struct ProxiedHedgeTests {
    @Test(arguments: [false, true])
    func theHedgeFollowsASlowCircuitsLatency(proxied: Bool) async throws {
        let manual = ManualClock()
        let clock = AnyClock(manual)
        let transport = ScriptedTransport(clock: clock)
        transport.route("http://slow:1") { _, _ in .json(FakeStatus().json, after: .milliseconds(2_500)) }
        let route = ResolvedRoute(.proxy(try Proxy("socks5h://127.0.0.1:9050")), environment: [:])
        let pool = Fixtures.pool(transport, nodes: ["http://slow:1"], clock: clock) { configuration in
            configuration = NodePool.Configuration(route: proxied ? route : .direct, proxied: proxied)
            // the answer is waited for either way: the hedge is what differs
            configuration.statusTimeout = .seconds(30)
        }
        let check = Task { await pool.checkHealth() }
        await manual.waitForSleepers(2)  // the check's deadline and the slow answer
        manual.advance(by: .milliseconds(2_500))
        _ = await check.value
        let best = try #require(try await pool.usableNodes(until: manual.now + .seconds(1)).first)
        #expect(best.latency == .milliseconds(2_500))
        #expect(pool.hedgeDelay(after: best) == (proxied ? .seconds(5) : .seconds(1)))
    }
}

/// Through a proxy the first health check gets the most any timeout may (nothing is measured
/// yet: direct + 35 s); after it, every timeout follows the latency measured on the route, 5 ×
/// the best node's, within its direct value and that most. Direct, nothing changes.
@Suite(.timeLimit(.minutes(1)))
struct ProxiedTimeoutTests {
    let manual = ManualClock()
    let proxy = ResolvedRoute(.proxy(try! Proxy("socks5h://127.0.0.1:9050")), environment: [:])

    /// A pool of one node whose status takes `latency`, checked once.
    func checkedPool(latency: Duration, proxied: Bool = true) async -> (NodePool, ScriptedTransport) {
        let clock = AnyClock(manual)
        let transport = ScriptedTransport(clock: clock)
        transport.node("http://n:1", paths: ["/api/node/status": .json(FakeStatus().json, after: latency)])
        let list = NodeList(
            endpoints: [NodeEndpoint(url: try! NodeURL("http://n:1"))], nethash: .majority, source: .arguments)
        let configuration = NodePool.Configuration(route: proxied ? proxy : .direct, proxied: proxied)
        let pool = NodePool(
            nodes: list, transport: transport, configuration: configuration, clock: clock,
            wallClock: ManualWallClock(unixMillis: Fixtures.unixMillis))
        await check(pool, taking: latency)
        return (pool, transport)
    }

    func check(_ pool: NodePool, taking latency: Duration) async {
        let check = Task { await pool.checkHealth() }
        await manual.waitForSleepers(2)  // the check's deadline and the answer
        manual.advance(by: latency)
        _ = await check.value
    }

    @Test func theFirstCheckGetsTheMostAndTheNextOnesFollowTheLatency() async throws {
        let (pool, transport) = await checkedPool(latency: .seconds(4))
        let first = try #require(transport.requests.first)
        #expect(first.timeout == .seconds(38) && first.connectTimeout == .seconds(37), "3 s and 2 s, each + 35 s")
        #expect(pool.reports[0].health.isUsable && pool.reports[0].latency == .seconds(4))

        // 5 × 4 s, above each direct value and below each most.
        for direct in [Duration.seconds(2), .seconds(3), .seconds(5), .seconds(10), .seconds(15)] {
            #expect(pool.allowing(direct) == .seconds(20))
        }
        #expect(
            pool.allowing(.seconds(25)) == .seconds(25) && pool.allowing(.seconds(30)) == .seconds(30),
            "never below the direct value")
        await check(pool, taking: .seconds(4))
        let second = transport.requests[1]
        #expect(
            second.timeout == .seconds(20) && second.connectTimeout == .seconds(20),
            "\(second.timeout) \(second.connectTimeout)")

        transport.node("http://n:1", paths: ["/api/blocks/getHeight": .json(#"{"success":true,"height":1000}"#)])
        #expect(try await NodeClient(pool: pool, deadline: .seconds(60)).height() == 1000)
        let read = try #require(transport.requests(to: "/api/blocks/getHeight").first)
        #expect(read.timeout == .seconds(20), "\(read.timeout)")
    }

    @Test func aFastRouteGetsTheDirectValuesAndASlowOneTheMost() async throws {
        let (fast, _) = await checkedPool(latency: .milliseconds(100))
        #expect(fast.allowing(.seconds(3)) == .seconds(3) && fast.allowing(.seconds(25)) == .seconds(25))
        let (slow, _) = await checkedPool(latency: .seconds(30))
        #expect(slow.allowing(.seconds(3)) == .seconds(38) && slow.allowing(.seconds(25)) == .seconds(60))
    }

    @Test func directNothingChanges() async throws {
        let (pool, transport) = await checkedPool(latency: .milliseconds(900), proxied: false)
        #expect(transport.requests[0].timeout == .seconds(3) && transport.requests[0].connectTimeout == .seconds(2))
        for direct in [Duration.seconds(2), .seconds(10), .seconds(25)] { #expect(pool.allowing(direct) == direct) }
    }

    /// Before anything is measured, an operation's default (a call, a watch's read, a fetch, a
    /// register's wait) outlasts a first health check, which gets the most.
    @Test func beforeAnyMeasurementAnOperationOutlastsTheFirstCheck() throws {
        let list = NodeList(
            endpoints: [NodeEndpoint(url: try NodeURL("http://n:1"))], nethash: .majority, source: .arguments)
        let pool = NodePool(
            nodes: list, transport: ScriptedTransport(),
            configuration: NodePool.Configuration(route: proxy, proxied: true))
        let check = pool.allowing(NodePool.Configuration().healthCheckDeadline)
        #expect(check == .seconds(40))
        for operation in [Duration.seconds(10), .seconds(15), .seconds(25), .seconds(30)] {
            #expect(pool.allowing(operation) > check)
        }
    }
}
