import AdamantCore
import Testing

@testable import AdamantDevnet

/// Filters and paging of `/api/chats/get` and `/api/transactions`.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct ListTests {
    let network: TestNetwork
    /// Block 2: a message and a transfer to Bob; block 3: a signal and a rich message from Bob.
    let message2: String, transfer2: String, signal3: String, rich3: String

    init() throws {
        network = try TestNetwork()
        try network.devnet.fund(Fixtures.bob.address, amount: try ADMAmount("10"))
        let sent = [try message("m"), try transfer(7)]
        for transaction in sent { _ = try network.submit(transaction) }
        network.devnet.mine()
        let later = [
            try message("{}", to: Fixtures.aliceKeys, from: Fixtures.bobKeys, type: .signal),
            try message("{\"x\":1}", to: Fixtures.aliceKeys, from: Fixtures.bobKeys, type: .rich),
        ]
        for transaction in later { _ = try network.submit(transaction) }
        network.devnet.mine()
        (message2, transfer2) = (try sent[0].computedID().description, try sent[1].computedID().description)
        (signal3, rich3) = (try later[0].computedID().description, try later[1].computedID().description)
    }

    func ids(_ query: String) throws -> [String] {
        let reply = try network.get(query)
        return reply.json["transactions"]?.arrayValue.compactMap { $0["id"]?.string } ?? [reply.error ?? "?"]
    }

    @Test func chatsGetFilters() throws {
        #expect(Set(try ids("/api/chats/get")) == [message2, rich3])
        #expect(try ids("/api/chats/get?type=3") == [signal3])
        #expect(try ids("/api/chats/get?type=2") == [rich3])
        #expect(try ids("/api/chats/get?fromHeight=2") == [rich3])
        #expect(Set(try ids("/api/chats/get?includeDirectTransfers=1")) == [message2, transfer2, rich3])
        #expect(try ids("/api/chats/get?senderId=\(Fixtures.bob.address)") == [rich3])
        #expect(try ids("/api/chats/get?recipientId=\(Fixtures.bob.address)") == [message2])
        #expect(Set(try ids("/api/chats/get?isIn=\(Fixtures.bob.address)")) == [message2, rich3])
        // Prefixed filters pass and are ignored.
        #expect(Set(try ids("/api/chats/get?and:senderId=\(Fixtures.bob.address)")) == [message2, rich3])
        let listed = try network.get("/api/chats/get?type=1").json
        #expect(
            listed["count"]?.int64 == 1
                && listed["transactions"]?.arrayValue.first?["recipientPublicKey"]?.isNull == true)
    }

    @Test func chatsGetOrderPagingAndLimits() throws {
        #expect(try ids("/api/chats/get?orderBy=timestamp:asc&limit=1") == [message2])
        #expect(try ids("/api/chats/get?orderBy=timestamp&limit=1") == [rich3])
        #expect(try ids("/api/chats/get?orderBy=timestamp:asc&limit=1&offset=1") == [rich3])
        #expect(try ids("/api/chats/get?limit=101") == ["Failed to get transactions: Invalid limit. Maximum is 100"])
        #expect(try ids("/api/chats/get?orderBy=amount") == ["Failed to get transactions: Invalid sort field"])
        let page = try network.get("/api/chats/get?limit=1").json
        #expect(page["count"]?.int64 == 2 && page["transactions"]?.arrayValue.count == 1)
    }

    @Test func chatsGetReturnsUnconfirmedOnRequest() throws {
        let network = try TestNetwork { $0.poolInterval = .milliseconds(20) }
        let pending = try message("pending")
        let id = try pending.computedID().description
        _ = try network.submit(pending)
        #expect(
            try eventually { try network.get("/api/transactions/unconfirmed/get?id=\(id)").json["transaction"] != nil })
        let withPool = try network.get("/api/chats/get?returnUnconfirmed=1").json["transactions"]!.arrayValue
        #expect(withPool.map { $0["id"]?.string } == [id] && withPool[0]["height"]?.isNull == true)
        #expect(try network.get("/api/chats/get").json["transactions"]?.arrayValue.isEmpty == true)
    }

    @Test func transactionsFiltersJoinByOrUnlessAnd() throws {
        #expect(Set(try ids("/api/transactions")) == [message2, transfer2, signal3, rich3])
        #expect(try ids("/api/transactions?type=0") == [transfer2])
        #expect(
            Set(try ids("/api/transactions?type=0&senderId=\(Fixtures.bob.address)")) == [transfer2, signal3, rich3])
        #expect(
            try ids(
                "/api/transactions?type=8&and:senderId=\(Fixtures.bob.address)&and:fromHeight=3&orderBy=timestamp:asc")
                == [signal3, rich3])
        #expect(Set(try ids("/api/transactions?fromHeight=3")) == [signal3, rich3])
        #expect(Set(try ids("/api/transactions?toHeight=2")) == [message2, transfer2])
        #expect(
            Set(try ids("/api/transactions?inId=\(Fixtures.bob.address)&and:type=8")) == [message2, signal3, rich3])
        #expect(
            try ids("/api/transactions?includeDirectTransfers=1") == [
                "Failed to get transactions: Parameter is not supported: includeDirectTransfers"
            ])
        #expect(try ids("/api/transactions?limit=2&offset=1&orderBy=height:asc").count == 2)
        let plain = try network.get("/api/transactions?type=8&limit=1").json["transactions"]!.arrayValue[0]
        #expect(plain["asset"]?.members.isEmpty == true)
        let full = try network.get("/api/transactions?type=8&limit=1&returnAsset=1").json["transactions"]!.arrayValue[0]
        #expect(full["asset"]?["chat"] != nil)
    }
}
