import AdamantCore
import AdamantDevnet
@testable import AdamantNodes
import Testing

/// A request goes out on the idle handle that last talked to its node, whichever worker runs
/// it (`CurlHandles`): a read hedged to the second node must not pay a new connection, and the
/// node a new thread, inside the hedge's budget.
@Suite struct LiveConnectionReuseTests {
    @Test func everyNodeKeepsItsConnectionWhicheverWorkerRunsTheRequest() async throws {
        let live = try LiveNetwork()
        let transport = CurlTransport()
        // The health check asks the three nodes at once: three workers, a connection to each node.
        _ = await live.client(transport: transport)
        let opened = try (0..<3).map { try live.devnet.connectionsAccepted(byNode: $0) }
        #expect(opened.allSatisfy { $0 >= 1 }, "\(opened)")

        // One node after another: with a handle per worker, a request met the connection of
        // its own node only when the worker woken happened to hold it.
        for _ in 0..<5 {
            for node in live.nodes {
                let request = HTTPRequest(url: node.description + "/api/blocks/getHeight", timeout: .seconds(20), connectTimeout: .seconds(10))
                #expect(try await transport.send(request).status == 200)
            }
        }
        #expect(try (0..<3).map { try live.devnet.connectionsAccepted(byNode: $0) } == opened)
    }
}
