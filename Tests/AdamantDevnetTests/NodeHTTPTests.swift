import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// The node endpoints over real HTTP (libmicrohttpd on loopback).
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct NodeHTTPTests {
    let network: TestNetwork
    init() throws { network = try TestNetwork() }

    @Test func envelopesAndMiddlewareShapes() throws {
        let height = try network.get("/api/blocks/getHeight")
        #expect(height.status == 200 && height.json["success"]?.boolValue == true && height.json["height"]?.int64 == 1)
        #expect(height.json["nodeTimestamp"]?.int64 != nil)
        #expect(height.headers["content-type"] == "application/json; charset=utf-8")

        let handlerError = try network.get("/api/transactions/get?id=123")
        #expect(handlerError.status == 200 && handlerError.error == "Transaction not found")
        #expect(handlerError.json["nodeTimestamp"] != nil)

        let wrongMethod = try HTTPClient.send("POST", network.node + "/api/chats/get", body: [])
        #expect(wrongMethod.status == 500 && wrongMethod.text == #"{"success":false,"error":"API endpoint not found"}"#)
        #expect(try network.get("/api/transactions/multisignatures").status == 404)
        let unknown = try network.get("/api/foo")
        #expect(unknown.status == 404 && unknown.text.contains("<pre>Cannot GET /api/foo</pre>"))

        let malformed = try HTTPClient.send("POST", network.node + "/api/transactions/process", body: Array("{".utf8))
        #expect(
            malformed.status == 500 && malformed.json["nodeTimestamp"] == nil
                && malformed.error?.hasPrefix("API error: ") == true)
        #expect(try network.get("/api/loader/status/ping").json["success"]?.boolValue == true)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let connection = try HTTPConnection(url: network.node)
        for _ in 0..<3 { #expect(try connection.send("GET", "/api/peers/version").json["version"]?.string == "0.10.3") }
    }

    @Test func submitConfirmAndReadBack() throws {
        let chat = try message("hello")
        let id = try chat.computedID().description
        let accepted = try network.submit(chat)
        #expect(accepted.json["success"]?.boolValue == true && accepted.json["transactionId"]?.string == id)
        #expect(
            try network.get("/api/transactions/queued/get?id=\(id)", node: 1).json["transaction"]?["relays"]?.int64 == 1
        )
        #expect(try network.get("/api/transactions/get?id=\(id)").error == "Transaction not found")

        network.devnet.mine()
        let plain = try network.get("/api/transactions/get?id=\(id)").json["transaction"]!
        #expect(plain["height"]?.int64 == 2 && plain["asset"]?.members.isEmpty == true)
        #expect(plain["confirmations"]?.int64 == 1 && plain["fee"]?.int64 == 100_000)
        let full = try network.get("/api/transactions/get?id=\(id)&returnAsset=1").json["transaction"]!
        let decoded = try JSONDecoderForTests.transaction(full)
        #expect(try decoded.verify().description == id)
        #expect(try decoded.decryptMessage(with: Fixtures.bobKeys, partner: Fixtures.alice.publicKey) == "hello")
        #expect(try network.get("/api/transactions/unconfirmed/get?id=\(id)").error == "Transaction not found")
    }

    @Test func unconfirmedListsFilterBySenderOrAddress() throws {
        _ = try network.submit(try message("one"))
        _ = try network.submit(try transfer(5))
        network.devnet.mine()  // both confirmed; now put two more in the pool
        _ = try network.submit(try message("two"))
        let list = try network.get("/api/transactions/queued?address=\(Fixtures.bob.address)").json
        #expect(list["transactions"]?.arrayValue.count == 1 && list["count"]?.int64 == 1)
        #expect(
            try network.get("/api/transactions/queued?senderPublicKey=\(Fixtures.bob.publicKey.hex)").json[
                "transactions"]?.arrayValue.isEmpty == true)
    }

    @Test func accountsAndBalances() throws {
        let alice = Fixtures.alice.address
        #expect(try network.get("/api/accounts/getBalance?address=\(alice)").json["balance"]?.string == "10000000000")
        #expect(try network.get("/api/accounts/getBalance?address=U1").json["balance"]?.string == "0")
        #expect(try network.get("/api/accounts/getPublicKey?address=\(alice)").error == "Account not found")
        #expect(try network.get("/api/accounts").error == "Missing required property: address or publicKey")
        #expect(
            try network.get("/api/accounts?address=\(alice)&publicKey=\(Fixtures.bob.publicKey.hex)").error
                == "Account publicKey does not match address")

        _ = try network.submit(try transfer(250_000_000))
        network.devnet.mine()
        #expect(
            try network.get("/api/accounts/getPublicKey?address=\(alice)").json["publicKey"]?.string
                == Fixtures.alice.publicKey.hex)
        let account = try network.get("/api/accounts?publicKey=\(Fixtures.alice.publicKey.hex)").json["account"]!
        #expect(account["balance"]?.string == "\(10_000_000_000 - 250_000_000 - 50_000_000)")
        #expect(
            try network.get("/api/accounts/getBalance?address=\(Fixtures.bob.address)").json["balance"]?.string
                == "250000000")
    }

    @Test(arguments: [
        ("0.10.3", true, true, true), ("0.10.0", true, true, false), ("0.9.0", true, false, false),
        ("0.8.3", false, false, false),
    ])
    func statusShapeByVersion(version: String, hasLoader: Bool, hasMillis: Bool, hasSchedules: Bool) throws {
        let network = try TestNetwork(nodes: 1, version: NodeVersion(version)!)
        let status = try network.get("/api/node/status").json
        #expect(status["version"]?["version"]?.string == version)
        #expect((status["loader"] != nil) == hasLoader)
        #expect((status["nodeTimestampMs"] != nil) == hasMillis)
        #expect((status["consensusSchedule"] != nil) == hasSchedules)
        #expect(status["network"]?["nethash"]?.string == network.devnet.nethash)
    }
}

enum JSONDecoderForTests {
    static func transaction(_ json: JSONValue) throws -> Transaction {
        try Transaction(json: json.bytes)
    }
}
