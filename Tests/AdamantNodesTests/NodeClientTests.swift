import AdamantCore
import Synchronization
import Testing

@testable import AdamantNodes

@Suite struct NodeClientTests {
    let transport = ScriptedTransport()

    func client(_ paths: [String: Behavior]) async -> NodeClient {
        transport.node("http://n1:1", paths: paths)
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1"])
        await pool.checkHealth()
        return NodeClient(pool: pool)
    }

    func lastQuery(_ path: String) -> [String: String] {
        transport.requests(to: path).last.map(ScriptedTransport.query) ?? [:]
    }

    @Test func transactionByIDAsksForTheAsset() async throws {
        let tx = Fixtures.confirmed(Fixtures.chat())
        let client = await client(["/api/transactions/get": .json(Fixtures.transactionBody(tx))])
        #expect(try await client.transaction(tx.id!)?.chat == tx.chat)
        #expect(lastQuery("/api/transactions/get") == ["id": tx.id!.description, "returnAsset": "1"])
    }

    @Test func locateWalksQueueThenPoolThenChain() async throws {
        let tx = Fixtures.chat()
        let client = await client([
            "/api/transactions/queued/get": .nodeError("Transaction not found"),
            "/api/transactions/unconfirmed/get": .json(Fixtures.transactionBody(tx)),
        ])
        #expect(try await client.locate(tx.id!) == .unconfirmed(tx))
        #expect(transport.requests(to: "/api/transactions/get").isEmpty)
    }

    /// A transaction forged into a block while it is looked for is still found: it is sought in
    /// the order it moves. (Walking chain, pool, queue lost it between the first two.)
    @Test func aTransactionForgedDuringTheLookupIsNotMissed() async throws {
        let tx = Fixtures.chat()
        let forged = Mutex(false)
        transport.route("http://n1:1") { _, path in
            switch path {
            case "/api/node/status": return .json(FakeStatus().json)
            case "/api/transactions/get":
                // Not in a block yet when first asked; forged right after.
                return forged.withLock { was in
                    defer { was = true }
                    return was
                } ? .json(Fixtures.transactionBody(Fixtures.confirmed(tx))) : .nodeError("Transaction not found")
            case "/api/transactions/unconfirmed/get", "/api/transactions/queued/get":
                return forged.withLock { $0 }
                    ? .nodeError("Transaction not found") : .json(Fixtures.transactionBody(tx))
            default: return .answer(status: 404, body: "<html></html>", contentType: "text/html")
            }
        }
        let pool = Fixtures.pool(transport, nodes: ["http://n1:1"])
        await pool.checkHealth()
        let location = try await NodeClient(pool: pool).locate(tx.id!)
        #expect(location != .notFound)
    }

    @Test func chatFiltersUseBareNames() async throws {
        let tx = Fixtures.chat()
        let client = await client([
            "/api/chats/get": .json(
                #"{"success":true,"nodeTimestamp":1,"transactions":[\#(Fixtures.json(tx))],"count":"12"}"#)
        ])
        let page = try await client.chats(
            ChatQuery(party: .sender(Fixtures.sender.address), chatType: .signal, afterHeight: 7, limit: 500))
        #expect(page == TransactionPage(transactions: [tx], count: 12))
        #expect(
            lastQuery("/api/chats/get") == [
                "senderId": Fixtures.sender.address.description, "type": "3", "fromHeight": "7", "limit": "100",
                "orderBy": "timestamp:asc",
            ])
    }

    @Test func transactionFiltersAreJoinedWithAnd() async throws {
        let client = await client([
            "/api/transactions": .json(#"{"success":true,"nodeTimestamp":1,"transactions":[],"count":0}"#)
        ])
        _ = try await client.transactions(
            TransactionQuery(
                types: [.transfer], recipient: Fixtures.recipient.address, fromHeight: 5, order: .newestFirst))
        #expect(
            lastQuery("/api/transactions") == [
                "and:type": "0", "and:recipientId": Fixtures.recipient.address.description, "and:fromHeight": "5",
                "limit": "100", "orderBy": "timestamp:desc", "returnAsset": "1",
            ])
    }

    @Test func aListWithOneTamperedTransactionIsRejected() async {
        let body =
            #"{"success":true,"nodeTimestamp":1,"transactions":[\#(Fixtures.json(Fixtures.chat())),\#(Fixtures.json(Fixtures.tampered(Fixtures.chat(text: 3))))]}"#
        let client = await client(["/api/chats/get": .json(body)])
        await #expect(throws: NodeError.self) { try await client.chats(ChatQuery()) }
    }

    /// A page opens as a success and is not read again before the client reads it: what
    /// follows the opening is still held to the grammar, and the node's answer refused.
    @Test(arguments: [
        (#":[],"count":0,}"#, "malformed JSON at byte 62: expected a key"),
        (#":[]} trailing"#, "more text after the JSON value"),
        (#":[{"id":"1""#, "the text ends inside the JSON"),
    ])
    func aPageThatBreaksAfterItsSuccessIsRefused(tail: String, reason: String) async {
        let client = await client(["/api/chats/get": .json(#"{"success":true,"nodeTimestamp":1,"transactions""# + tail)]
        )
        let error = await #expect(throws: NodeError.self) { try await client.chats(ChatQuery()) }
        #expect(error.map { "\($0)" }?.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func publicKeyMustHashToTheAddress() async throws {
        let key = Fixtures.sender.publicKey
        let client = await client([
            "/api/accounts/getPublicKey": .json(#"{"success":true,"nodeTimestamp":1,"publicKey":"\#(key.hex)"}"#)
        ])
        #expect(try await client.publicKey(of: Fixtures.sender.address) == key)
        await #expect(throws: NodeError.self) { try await client.publicKey(of: Fixtures.recipient.address) }
    }

    @Test func unknownAccountIsNil() async throws {
        let client = await client([
            "/api/accounts/getPublicKey": .nodeError("Account not found"),
            "/api/accounts": .nodeError("Account not found"),
        ])
        #expect(try await client.publicKey(of: Fixtures.recipient.address) == nil)
        #expect(try await client.account(Fixtures.recipient.address) == nil)
    }

    @Test func accountAndBalanceAmountsAreStrings() async throws {
        let address = Fixtures.sender.address
        let client = await client([
            "/api/accounts": .json(
                #"{"success":true,"nodeTimestamp":1,"account":{"address":"\#(address)","unconfirmedBalance":"49000000","balance":"50000000","publicKey":"\#(Fixtures.sender.publicKey.hex)","unconfirmedSignature":0,"secondSignature":0,"secondPublicKey":null,"multisignatures":[],"u_multisignatures":[]}}"#
            ),
            "/api/accounts/getBalance": .json(
                #"{"success":true,"nodeTimestamp":1,"balance":"0","unconfirmedBalance":"0"}"#),
        ])
        let account = try #require(try await client.account(address))
        #expect(account.balance == ADMAmount(units: 50_000_000) && account.unconfirmedBalance.description == "0.49")
        #expect(account.publicKey == Fixtures.sender.publicKey)
        #expect(try await client.balance(of: address).balance == ADMAmount(units: 0))
    }

    @Test func statusAndHeight() async throws {
        let client = await client(["/api/blocks/getHeight": .json(#"{"success":true,"nodeTimestamp":1,"height":1234}"#)]
        )
        #expect(try await client.height() == 1234)
        #expect(try await client.status().version == NodeVersion(0, 10, 3))
    }
}
