import AdamantDevnet
import Testing

@testable import AdamantNodes

@Suite(.timeLimit(.minutes(1)))
struct LiveSizeCapTests {
    static let cap = 8 * 1024

    /// A cap between the size of a status (so health checks pass) and of a page of 20 chats.
    @Test func anAnswerOverTheCapIsCutOffOnEveryNode() async throws {
        let network = try LiveNetwork()
        let client = await network.client(deadline: .seconds(20))
        for number in 1...20 {
            let sent = try await network.sendChat("chat number \(number)", via: client)
            try #require(sent.outcome.isSuccess)
        }
        network.devnet.mine()
        let chats = network.nodes[0].endpoint("/api/chats/get", query: ChatQuery().queryItems)
        let status = network.nodes[0].endpoint("/api/node/status")
        try #require(try await network.transport.send(request(status)).body.count < Self.cap)
        try #require(try await network.transport.send(request(chats)).body.count > Self.cap)

        let capped = CurlTransport(configuration: .init(maxResponseBytes: Self.cap))
        await #expect(throws: TransportError.responseTooLarge(limit: Self.cap)) {
            try await capped.send(request(chats))
        }

        let cappedClient = await network.client(deadline: .seconds(20), transport: capped)
        #expect(cappedClient.pool.reports.allSatisfy { $0.health.isUsable })
        let error = await #expect(throws: NodeError.self) { try await cappedClient.chats(ChatQuery()) }
        guard case .allNodesFailed(let failures)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(Set(failures.map(\.node)) == Set(network.nodes))
        #expect(failures.allSatisfy { $0.reason == TransportError.responseTooLarge(limit: Self.cap).description })
    }

    private func request(_ url: String) -> HTTPRequest {
        HTTPRequest(url: url, timeout: .seconds(5), connectTimeout: .seconds(1))
    }
}
