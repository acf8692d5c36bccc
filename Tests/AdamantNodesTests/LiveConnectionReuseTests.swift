import AdamantCore
import AdamantDevnet
import Testing

@testable import AdamantNodes

/// A request goes out on the idle handle that last talked to its node, whichever worker runs
/// it (`CurlHandles`): a read hedged to the second node must not pay a new connection, and the
/// node a new thread, inside the hedge's budget.
@Suite struct LiveConnectionReuseTests {
    @Test func everyNodeKeepsItsConnectionWhicheverWorkerRunsTheRequest() async throws {
        let live = try LiveNetwork()
        let transport = CurlTransport()
        // Timeouts no loaded machine reaches: a retried connection would count as a new one.
        let requests = live.nodes.map {
            HTTPRequest(
                url: $0.description + "/api/blocks/getHeight", timeout: .seconds(60), connectTimeout: .seconds(30))
        }
        // The three at once, as a health check asks them: three workers, a connection to each node.
        async let first = transport.send(requests[0])
        async let second = transport.send(requests[1])
        async let third = transport.send(requests[2])
        #expect(try await [first, second, third].map(\.status) == [200, 200, 200])
        let opened = try (0..<3).map { try live.devnet.connectionsAccepted(byNode: $0) }

        // One node after another: with a handle per worker, a request met the connection of
        // its own node only when the worker woken happened to hold it.
        for _ in 0..<5 {
            for request in requests { #expect(try await transport.send(request).status == 200) }
        }
        #expect(try (0..<3).map { try live.devnet.connectionsAccepted(byNode: $0) } == opened, "\(opened) before")
    }
}
