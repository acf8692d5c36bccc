import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// `POST /send`, `POST /contacts` and their Swift counterparts: signed as devnet accounts,
/// admitted as a node admits, readable by the other party.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct ControlSendTests {
    let network: TestNetwork
    var devnet: Devnet { network.devnet }
    let alice = Fixtures.alice.address, bob = Fixtures.bob.address

    init() throws {
        network = try TestNetwork {
            $0.allocations = [
                .init(Fixtures.alice, amount: try! ADMAmount("100")), .init(Fixtures.bob, amount: try! ADMAmount("1")),
            ]
        }
    }

    func send(_ body: JSONValue) throws -> HTTPResult { try network.control("POST", "/send", body) }

    func confirmed(_ id: String?) throws -> Transaction {
        let id = try #require(id.flatMap(TransactionID.init))
        devnet.mine()
        return try #require(devnet.confirmedTransactions.first { $0.id == id })
    }

    @Test(arguments: [("message", ChatType.message), ("rich", .rich), ("signal", .signal)])
    func chatKindsAreEncryptedToTheRecipient(_ kind: String, _ type: ChatType) throws {
        let reply = try send([
            "from": .string(alice.description), "to": .string(bob.description), "kind": .string(kind),
            "message": "{\"a\":1}",
        ])
        #expect(reply.status == 200)
        let transaction = try confirmed(reply.json["id"]?.string)
        #expect(transaction.type == .chat && transaction.chat?.type == type && transaction.amount == 0)
        #expect(
            try transaction.decryptMessage(with: Fixtures.bobKeys, partner: Fixtures.aliceKeys.publicKey) == "{\"a\":1}"
        )
    }

    @Test func aTransferWithACommentIsAType8WithTheAmount() throws {
        let reply = try send([
            "from": .string(alice.description), "to": .string(bob.description), "kind": "transfer",
            "message": "for coffee", "amount": "1.5",
        ])
        let transaction = try confirmed(reply.json["id"]?.string)
        #expect(transaction.type == .chat && transaction.amount == 150_000_000 && transaction.fee == Fee.transfer)
        #expect(
            try transaction.decryptMessage(with: Fixtures.bobKeys, partner: Fixtures.aliceKeys.publicKey)
                == "for coffee")
    }

    @Test func aTransferWithoutACommentIsAType0() throws {
        let id = try devnet.send(from: alice, to: bob, kind: .transfer, amount: try ADMAmount("2"))
        let transaction = try confirmed(id.description)
        #expect(transaction.type == .transfer && transaction.amount == 200_000_000)
        #expect(devnet.balance(of: bob) == (try ADMAmount("3")))
    }

    /// The recipient's key must be known: to the chain, or as a devnet account.
    @Test func anUnknownRecipientKeyIsA400() throws {
        let stranger = KeyPair.random().address
        let reply = try send([
            "from": .string(alice.description), "to": .string(stranger.description), "kind": "message", "message": "hi",
        ])
        #expect(reply.status == 400 && reply.error?.contains("public key of \(stranger) is unknown") == true)
        // A transfer needs no key.
        #expect(
            try send([
                "from": .string(alice.description), "to": .string(stranger.description), "kind": "transfer",
                "amount": "1",
            ]).status == 200)
    }

    /// The node's own errors come back as 400s.
    @Test func theNodesRejectionIsPassedOn() throws {
        let poor = devnet.accounts.last!.account.address  // the zero-balance account
        let reply = try send([
            "from": .string(poor.description), "to": .string(bob.description), "kind": "message", "message": "hi",
        ])
        #expect(reply.status == 400 && reply.error == "Account does not have enough ADM: \(poor) balance: 0")
    }

    static let badBodies: [(JSONValue, String)] = [
        (["to": "U1", "kind": "message", "message": "x"], "missing or invalid from"),
        (["from": "U1", "to": "U2", "kind": "message", "message": "x"], "is not a devnet account"),
        (["from": "Ux", "to": "U2", "kind": "message"], "missing or invalid from"),
        (["from": "U1", "to": 7, "kind": "message"], "missing or invalid to"),
        (["from": "U1", "to": "U2", "kind": "poem"], "missing or invalid kind"),
        (["from": "U1", "to": "U2", "kind": "transfer", "amount": 5], "amount must be a string"),
        (["from": "U1", "to": "U2", "kind": "transfer", "amount": "-1"], "missing or invalid amount"),
        (["from": "U1", "to": "U2", "kind": "transfer", "amount": "98000000.000000001"], "missing or invalid amount"),
        (["from": "U1", "to": "U2", "kind": "message", "message": ["x"]], "message must be a string"),
    ]

    @Test(arguments: badBodies)
    func badBodiesAreJSON400s(_ body: JSONValue, _ error: String) throws {
        let reply = try send(body)
        #expect(reply.status == 400 && reply.error?.contains(error) == true, "\(reply.error ?? "")")
    }

    @Test func kindSpecificRulesAreChecked() throws {
        let base: JSONValue = ["from": .string(alice.description), "to": .string(bob.description)]
        #expect(try send(base.setting("kind", to: JSONValue.string("message"))).error == "a message needs a message")
        #expect(
            try send(base.setting("kind", to: JSONValue.string("transfer"))).error
                == "a transfer needs an amount above 0 ADM")
        #expect(
            try send(base.setting("kind", to: JSONValue.string("transfer")).setting("amount", to: "0")).error
                == "a transfer needs an amount above 0 ADM")
        #expect(
            try send(
                base.setting("kind", to: JSONValue.string("message")).setting("message", to: JSONValue.string("x"))
                    .setting("amount", to: JSONValue.string("1"))
            ).error
                == "only a transfer carries an amount")
        let tooLong = String(repeating: "x", count: 10_225)
        #expect(
            try send(base.setting("kind", to: JSONValue.string("message")).setting("message", to: .string(tooLong)))
                .status == 400)
    }

    @Test func contactsAreStoredEncryptedForTheAccount() throws {
        let names: JSONValue = .object([
            (key: bob.description, value: JSONValue.string("Bob")),
            (key: "U123", value: JSONValue.string("Ünïcode\u{7}")),
        ])
        let reply = try network.control("POST", "/contacts", ["account": .string(alice.description), "names": names])
        #expect(reply.status == 200)
        let transaction = try confirmed(reply.json["id"]?.string)
        #expect(transaction.state?.key == "contact_list" && transaction.recipientId == nil)
        let payload = try KVSKey(keyPair: Fixtures.aliceKeys).open(
            try #require(transaction.state?.value), payloadAs: [String: [String: String]].self)
        #expect(payload == [bob.description: ["displayName": "Bob"], "U123": ["displayName": "Ünïcode\u{7}"]])
        // And the nodes list it as the clients ask for it.
        let listed = try network.get(
            "/api/states/get?senderId=\(alice)&key=contact_list&orderBy=timestamp:desc&limit=1"
        ).json
        #expect(listed["transactions"]?.arrayValue.first?["id"]?.string == transaction.id?.description)
    }

    @Test func contactsBodiesAreChecked() throws {
        #expect(
            try network.control("POST", "/contacts", ["account": .string(alice.description), "names": []]).status == 400
        )
        #expect(
            try network.control("POST", "/contacts", ["account": .string(alice.description), "names": ["bad": "x"]])
                .status == 400)
        #expect(
            try network.control(
                "POST", "/contacts",
                ["account": .string(alice.description), "names": [.init(stringLiteral: bob.description): 7]]
            ).status == 400)
        let many = JSONValue.object(
            (0..<400).map { (key: "U\(1_000_000 + $0)", value: JSONValue.string(String(repeating: "n", count: 40))) })
        let reply = try network.control("POST", "/contacts", ["account": .string(alice.description), "names": many])
        #expect(reply.status == 400 && reply.error?.contains("20480") == true, "\(reply.error ?? "")")
    }
}
