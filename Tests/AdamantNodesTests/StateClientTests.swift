import AdamantCore
import Foundation
import Synchronization
import Testing

@testable import AdamantNodes

@Suite struct StateClientTests {
    let transport = ScriptedTransport()
    static let owner = Fixtures.sender

    static func state(
        _ key: String = "contact_list", value: String = "v", at offset: Int32 = 0, by keyPair: KeyPair = owner
    ) -> Transaction {
        try! Transaction.state(
            key: key, value: value, timestamp: Int32(Fixtures.nodeEpochMillis / 1000) + offset, signedBy: keyPair)
    }

    static func body(_ transactions: [Transaction]) -> String {
        #"{"success":true,"nodeTimestamp":1,"transactions":[\#(transactions.map(Fixtures.json).joined(separator: ","))],"count":\#(transactions.count)}"#
    }

    func client(_ paths: [String: Behavior]) async -> NodeClient {
        transport.node("http://n1:1", paths: paths)
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1"])
        await pool.checkHealth()
        return NodeClient(pool: pool)
    }

    @Test func asksForTheOwnersKeyNewestFirst() async throws {
        let newest = Self.state(value: "new", at: 5)
        let older = Self.state(value: "old")
        let client = await client(["/api/states/get": .json(Self.body([older, newest]))])
        #expect(try await client.states(of: Self.owner.address, key: "contact_list", limit: 500) == [newest, older])
        let query = transport.requests(to: "/api/states/get").last.map(ScriptedTransport.query)
        #expect(
            query == [
                "senderId": Self.owner.address.description, "key": "contact_list", "orderBy": "timestamp:desc",
                "limit": "100",
            ])
    }

    @Test func noValueIsAnEmptyList() async throws {
        let client = await client(["/api/states/get": .json(Self.body([]))])
        #expect(try await client.states(of: Self.owner.address, key: "contact_list").isEmpty)
    }

    /// A node cannot slip in another owner's value, another key, another type, or a forgery.
    @Test(arguments: [
        StateClientTests.state("eth:address"),
        StateClientTests.state(by: Fixtures.recipient),
        Fixtures.chat(),
        Fixtures.tampered(StateClientTests.state()),
    ])
    func foreignOrForgedAnswersAreRejected(_ intruder: Transaction) async {
        let client = await client(["/api/states/get": .json(Self.body([Self.state(), intruder]))])
        await #expect(throws: NodeError.self) { try await client.states(of: Self.owner.address, key: "contact_list") }
    }

    @Test func submitStateSignsAndPostsToTheStoreEndpoint() async throws {
        let posted = Mutex<HTTPRequest?>(nil)
        transport.route("http://n1:1") { request, path in
            guard request.method == .post else { return .json(FakeStatus().json) }
            posted.withLock { $0 = request }
            let sent = try! Fixtures.submitted(request.body)
            return Fixtures.accepted(try! sent.computedID())
        }
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1"])
        await pool.checkHealth()
        let recorded = Mutex<TransactionID?>(nil)
        let result = try await NodeClient(pool: pool).submitState(
            key: "contact_list", value: "{}x", signedBy: Self.owner
        ) { tx in
            recorded.withLock { $0 = tx.id }
        }
        let request = try #require(posted.withLock { $0 })
        #expect(request.url.hasSuffix("/api/states/store"))
        let sent = try Fixtures.submitted(request.body)
        #expect(sent.state == StateAsset(key: "contact_list", value: "{}x") && sent.recipientId == nil)
        #expect(try sent.verify() == recorded.withLock { $0 })
        #expect(result.outcome == .accepted(try sent.computedID()))
    }
}
