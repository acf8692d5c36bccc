import AdamantCore
import Synchronization
import Testing

@testable import AdamantNodes

/// Reads over real sockets: each devnet fault on the node the pool ranks first, and the chat
/// in a block still comes back, from another node, without waiting out any timeout.
@Suite(.timeLimit(.minutes(1)))
struct LiveFailoverTests {
    /// Past anything hedging or failing over costs, even on a loaded machine.
    static let longRequestTimeout = Duration.seconds(8)

    /// Every fault that spoils a read. `delay` is past the request timeout; `trickle`
    /// sends a byte every 200 ms; `tamper` fails the signature check. (`drop` and
    /// `timeout-after-accept` touch only submissions: see `LiveWriteTests`.)
    @Test(arguments: [
        "refuse", "blackhole", "delay:10000", "status:500", "status:403", "status:429", "status:503", "html404",
        "garbage",
        "truncate", "trickle", "tamper",
    ])
    func aReadOutlivesAFaultOnTheBestNode(fault: String) async throws {
        let live = try await ChatOnChain(requestTimeout: Self.longRequestTimeout)
        let best = try await live.ranked()[0]
        try live.network.add(fault, to: best)

        let started = ContinuousClock.now
        let found = try await live.client.transaction(live.id)

        #expect(found?.id == live.id && found?.isConfirmed == true)
        // Failing over on an error, or hedging past silence, never waits for a request timeout.
        #expect(started.duration(to: .now) < live.client.pool.configuration.requestTimeout)
        #expect(live.network.transport.nodesAsked(for: ChatOnChain.path, among: live.network.nodes).first == best)
        #expect(
            try live.network.nodes.filter { $0 != best }.contains {
                try live.network.answered(ChatOnChain.path, from: $0)
            })
    }

    @Test func aTamperedTransactionIsTurnedDownByTheVerifyHook() async throws {
        let live = try await ChatOnChain()
        try live.network.add("tamper", to: try await live.ranked()[0])
        let failedChecks = Tally()
        var client = live.client
        client.verify = { transaction in
            do { try transaction.verify() } catch {
                failedChecks.add()
                throw error
            }
        }

        #expect(try await client.transaction(live.id)?.id == live.id)
        #expect(failedChecks.value == 1)
    }

    @Test func aSilentBestNodeAndAGarbledSecondLeaveTheThird() async throws {
        let live = try await ChatOnChain(requestTimeout: Self.longRequestTimeout)
        let ranked = try await live.ranked()
        try live.network.add("blackhole", to: ranked[0])
        try live.network.add("garbage", to: ranked[1])

        let started = ContinuousClock.now
        #expect(try await live.client.transaction(live.id)?.id == live.id)
        #expect(started.duration(to: .now) < live.client.pool.configuration.requestTimeout)
        #expect(live.network.transport.nodesAsked(for: ChatOnChain.path, among: live.network.nodes) == ranked)
        #expect(try live.network.answered(ChatOnChain.path, from: ranked[2]))
    }

    @Test func everyNodeRefusingFailsAtOnceNamingEachNode() async throws {
        let live = try await ChatOnChain(deadline: .seconds(20))
        for node in live.network.nodes { try live.network.add("refuse", to: node) }

        let started = ContinuousClock.now
        let error = await #expect(throws: NodeError.self) { try await live.client.transaction(live.id) }
        #expect(
            started.duration(to: .now) < live.client.deadline / 2,
            "well before the deadline (a loaded machine takes seconds)")
        guard case .allNodesFailed(let failures)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(Set(failures.map(\.node)) == Set(live.network.nodes))
        // Refused, or (for a kept-alive connection the fault closed) cut off: no answer either way.
        #expect(
            failures.allSatisfy { if case .noAnswer = $0.kind { true } else { false } }, "\(failures.map(\.reason))")
    }

    @Test func everyNodeSilentEndsAtTheDeadline() async throws {
        // Only the deadline can end the read before the long request timeout; the bound between
        // them leaves room for a loaded machine (1.65 s seen for a 600 ms deadline).
        let live = try await ChatOnChain(deadline: .milliseconds(600), requestTimeout: Self.longRequestTimeout)
        for node in live.network.nodes { try live.network.add("blackhole", to: node) }

        let started = ContinuousClock.now
        let error = await #expect(throws: NodeError.self) { try await live.client.transaction(live.id) }
        // exact on a manual clock: PoolTimingTests
        #expect(started.duration(to: .now) < live.client.deadline + .seconds(4))
        guard case .deadlineExceeded? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func cancellingAReadStuckOnSilentNodesReturnsAtOnce() async throws {
        let live = try await ChatOnChain(deadline: .seconds(10), requestTimeout: Self.longRequestTimeout)
        let best = try await live.ranked()[0]
        for node in live.network.nodes { try live.network.add("blackhole", to: node) }

        let read = Task { try await live.client.transaction(live.id) }
        // Stuck for sure once the best node holds the request.
        #expect(try await eventually { try !live.network.requests(to: best, path: ChatOnChain.path).isEmpty })
        let cancelled = ContinuousClock.now
        read.cancel()
        await #expect(throws: NodeError.cancelled) { try await read.value }
        #expect(cancelled.duration(to: .now) < live.client.pool.configuration.requestTimeout / 2)
    }
}

/// Counts from any thread.
private final class Tally: Sendable {
    private let count = Atomic(0)

    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
