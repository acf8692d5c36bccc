import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// Signed without Core's checks, so the node's own can be tried.
func state(
    _ key: String = "contact_list", value: String = "v", type: Int32 = 0, from keys: KeyPair = Fixtures.aliceKeys,
    timestamp: Int32 = nowTimestamp()
) throws -> Transaction {
    var transaction = Transaction(
        type: .state, amount: 0, senderPublicKey: keys.publicKey, recipientId: nil, timestamp: timestamp,
        state: StateAsset(key: key, value: value, type: type))
    try transaction.sign(with: keys)
    return transaction
}

/// KVS (type 9) admission, storage and `/api/states/get`, with the node's texts.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct StateTests {
    let network: TestNetwork

    init() throws { network = try TestNetwork() }

    func submitted(_ transaction: Transaction, path: String? = nil) throws -> JSONValue {
        try network.submit(transaction, path: path).json
    }

    func error(_ transaction: Transaction, path: String? = nil) throws -> String? {
        try submitted(transaction, path: path)["error"]?.string
    }

    func error(_ body: JSONValue, path: String = "/api/states/store") throws -> String? {
        try HTTPClient.send("POST", network.node + path, body: body.bytes).json["error"]?.string
    }

    @Test func storedValueIsListedAsTheNodeWritesIt() throws {
        let stored = try state(value: "{\"message\":\"00\",\"nonce\":\"11\"}")
        #expect(try submitted(stored)["transactionId"]?.string == stored.id?.description)
        network.devnet.mine()
        let reply = try network.get(
            "/api/states/get?senderId=\(Fixtures.alice.address)&key=contact_list&orderBy=timestamp:desc")
        let answer = reply.json
        // `State.dbRead`'s key order, and the nulls of the list view.
        #expect(String(decoding: reply.body, as: UTF8.self).contains(#""key":"contact_list","type":0}}"#))
        #expect(answer["count"]?.int64 == 1)
        let row = try #require(answer["transactions"]?.arrayValue.first)
        #expect(row["recipientId"]?.isNull == true && row["recipientPublicKey"]?.isNull == true)
        #expect(row["requesterPublicKey"]?.isNull == true && row["signSignature"]?.isNull == true)
        #expect(row["fee"]?.int64 == 100_000 && row["type"]?.int64 == 9)
        let decoded = try Transaction(json: row.bytes)
        #expect(try decoded.verify() == stored.id && decoded.state == stored.state)
        // The single-transaction endpoint carries the asset too.
        let single = try network.get("/api/transactions/get?id=\(stored.id!)&returnAsset=1").json["transaction"]
        #expect(single?["asset"]?["state"]?["value"]?.string == stored.state?.value)
    }

    @Test func newestFirstKeyAndSenderFilters() throws {
        let old = try state(value: "old", timestamp: nowTimestamp(offsetSeconds: -2))
        let new = try state(value: "new")
        let other = try state("eth:address", value: "0xabc")
        for transaction in [old, new, other] { #expect(try submitted(transaction)["success"]?.boolValue == true) }
        network.devnet.mine()
        func values(_ query: String) throws -> [String] {
            try network.get("/api/states/get?" + query).json["transactions"]?.arrayValue.compactMap {
                $0["asset"]?["state"]?["value"]?.string
            } ?? []
        }
        let owner = Fixtures.alice.address
        #expect(try values("senderId=\(owner)&key=contact_list&orderBy=timestamp:desc") == ["new", "old"])
        #expect(try values("senderId=\(owner)&key=contact_list&orderBy=timestamp:desc&limit=1") == ["new"])
        #expect(try values("senderIds=\(owner),\(Fixtures.bob.address)&keyIds=eth:address") == ["0xabc"])
        #expect(try values("senderId=\(Fixtures.bob.address)").isEmpty)
        #expect(try values("senderId=\(owner)&fromHeight=2").isEmpty, "fromHeight is strictly greater")
        let posted = try HTTPClient.send(
            "POST", network.node + "/api/states/get",
            body: (["senderIds": [.string(owner.description)], "key": "contact_list", "orderBy": "timestamp:asc"]
                as JSONValue).bytes)
        #expect(
            posted.json["transactions"]?.arrayValue.compactMap { $0["asset"]?["state"]?["value"]?.string } == [
                "old", "new",
            ])
    }

    @Test(arguments: [
        ("limit=101", "Failed to get transactions: Invalid limit. Maximum is 100"),
        ("limit=1001", "Value 1001 is greater than maximum 1000"),
        ("limit=0", "Value 0 is less than minimum 1"),
        ("limit=x", "Expected type integer but found type string"),
        ("senderId=U1x", "Object didn't pass validation for format address: U1x"),
        ("and:senderId=bad", "Object didn't pass validation for format address: bad"),
        ("senderIds=U1,nope", "Object didn't pass validation for format address: nope"),
        ("type=11", "Value 11 is greater than maximum 10"),
        ("orderBy=height", "Failed to get transactions: Invalid sort field"),
    ])
    func listErrors(_ query: String, _ message: String) throws {
        #expect(try network.get("/api/states/get?" + query).json["error"]?.string == message)
    }

    @Test func admissionChecksInTheNodesOrder() throws {
        #expect(try error(try state(type: 2)) == "Invalid state type")
        #expect(try error(try state(value: " padded")) == "Value must not be blank")
        #expect(
            try error(try state(timestamp: nowTimestamp(offsetSeconds: -30)))
                == "Transaction timestamp is more than 5 seconds in the past")
        let valid = try state()
        let posted = try body(of: valid)
        let asset = { (state: JSONValue) throws -> JSONValue in
            try body(of: valid, setting: "asset", to: ["state": state])
        }
        #expect(
            try error(try asset(["value": "", "type": 0]))
                == "Failed to validate state schema: String is too short (0 chars), minimum 1")
        #expect(
            try error(try asset(["key": JSONValue.string(String(repeating: "k", count: 21)), "value": "v", "type": 0]))
                == "Failed to validate state schema: String is too long (21 chars), maximum 20")
        #expect(
            try error(try asset(["value": "v", "type": -1]))
                == "Failed to validate state schema: Value -1 is less than minimum 0")
        #expect(
            try error(try asset(["value": "v"])) == "Failed to validate state schema: Missing required property: type")
        #expect(try error(try asset(["value": "other", "type": 0])) == "Failed to verify signature")
        #expect(try error(try body(of: valid, setting: "asset", to: [:])) == "Invalid transaction asset")
        // /api/transactions/process looks the recipient up first; the KVS handlers do not.
        #expect(try error(posted, path: "/api/transactions/process") == "Invalid recipient")
        #expect(
            try HTTPClient.send("POST", network.node + "/api/transactions", body: posted.bytes).json["transactionId"]?
                .string
                == valid.id?.description)
        #expect(try error(posted) == "Transaction is already processed: \(valid.id!)")
    }

    /// docs/protocol.md §5.1 on the node's side: the fee follows the hex-decoded length, not
    /// the text.
    @Test func feeIsTheNodesFormula() throws {
        let hexValue = try state(value: String(repeating: "ab", count: 765))
        _ = try submitted(hexValue)
        let queued = try network.get("/api/transactions/queued/get?id=\(hexValue.id!)").json["transaction"]
        #expect(queued?["fee"]?.int64 == 200_000)
    }

    /// The node's SQL views: `/api/chats/get` (and states) join no account, so the recipient's
    /// key is null; `/api/transactions` and `/api/transactions/get` join it.
    @Test func recipientPublicKeyByEndpoint() throws {
        try network.devnet.fund(Fixtures.bob.address, amount: try ADMAmount("1"))
        _ = try network.submit(try message("hi", to: Fixtures.aliceKeys, from: Fixtures.bobKeys))
        network.devnet.mine()
        let chat = try message("back")
        _ = try network.submit(chat)
        network.devnet.mine()
        let bobKey = Fixtures.bob.publicKey.hex
        let listed = try network.get("/api/chats/get?senderId=\(Fixtures.alice.address)").json["transactions"]?
            .arrayValue.first
        #expect(listed?["recipientPublicKey"]?.isNull == true)
        let single = try network.get("/api/transactions/get?id=\(chat.id!)").json["transaction"]
        #expect(single?["recipientPublicKey"]?.string == bobKey)
        let general = try network.get("/api/transactions?senderId=\(Fixtures.alice.address)").json["transactions"]?
            .arrayValue.first
        #expect(general?["recipientPublicKey"]?.string == bobKey)
    }
}
