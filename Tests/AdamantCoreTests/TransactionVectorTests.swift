import AdamantCore
import Foundation
import Testing

struct TransactionVector: Codable, Sendable, CustomTestStringConvertible {
    let name: String
    let transaction: JSONValue
    let bytes, hash, signature, id: String
    let fee: Int64
    let passphrase: String?
    let plaintext: String?
    let recipientPassphrase: String?
    var testDescription: String { name }
}

@Suite("Transaction vectors")
struct TransactionVectorTests {
    static let vectors: [TransactionVector] = Vectors.load("transactions.json")

    @Test(arguments: vectors)
    func bytesHashSignatureIDAndFee(_ vector: TransactionVector) throws {
        let transaction = try Transaction(json: Array(vector.transaction.data))
        #expect(Hex.encode(try transaction.unsignedBytes()) == vector.bytes)
        #expect(Hex.encode(try transaction.signingHash()) == vector.hash)
        #expect(Hex.encode(transaction.signature) == vector.signature)
        #expect(try transaction.computedID().description == vector.id)
        #expect(try transaction.verify().description == vector.id)
        #expect(try Fee.of(transaction) == vector.fee)
    }

    /// Signing is deterministic: the same fields and key give the vector's signature and id.
    @Test(arguments: vectors.filter { $0.passphrase != nil })
    func signingReproducesTheVector(_ vector: TransactionVector) throws {
        var transaction = try Transaction(json: Array(vector.transaction.data))
        transaction.signature = []
        transaction.id = nil
        try transaction.sign(with: keyPair(passphrase: vector.passphrase!))
        #expect(Hex.encode(transaction.signature) == vector.signature)
        #expect(transaction.id?.description == vector.id)
        #expect(transaction.fee == vector.fee)
    }

    @Test(arguments: vectors.filter { $0.plaintext != nil })
    func bothPartiesDecrypt(_ vector: TransactionVector) throws {
        let transaction = try Transaction(json: Array(vector.transaction.data))
        let recipient = try keyPair(passphrase: try #require(vector.recipientPassphrase))
        #expect(
            try transaction.decryptMessage(with: recipient, partner: transaction.senderPublicKey) == vector.plaintext)
        if let passphrase = vector.passphrase {
            let sender = try keyPair(passphrase: passphrase)
            #expect(try transaction.decryptMessage(with: sender, partner: recipient.publicKey) == vector.plaintext)
        }
    }

    /// Node JSON → model → node JSON → model loses nothing, and the submit body carries exactly
    /// the fields the node reads.
    @Test(arguments: vectors)
    func encodingRoundTrips(_ vector: TransactionVector) throws {
        let transaction = try Transaction(json: Array(vector.transaction.data))
        let again = try Transaction(json: Array(JSONEncoder().encode(transaction)))
        #expect(again == transaction)

        let body = try JSONDecoder().decode(JSONValue.self, from: Data(transaction.submissionBody()))
        guard case .object(let submitted)? = body["transaction"] else {
            Issue.record("no transaction")
            return
        }
        let allowed: Set = [
            "type", "amount", "senderId", "senderPublicKey", "recipientId", "timestamp", "timestampMs", "asset",
            "signature",
        ]
        #expect(Set(submitted.keys).isSubset(of: allowed))
        #expect(submitted["amount"] == .integer(transaction.amount), "amounts are JSON integers")
        let resubmitted = try Transaction(json: Array(JSONEncoder().encode(JSONValue.object(submitted))))
        #expect(try resubmitted.verify().description == vector.id)
    }

    @Test func coverage() throws {
        let transactions = try Self.vectors.map { try Transaction(json: Array($0.transaction.data)) }
        #expect(Self.vectors.count >= 48)
        #expect(Self.vectors.contains { $0.id == "6146865104403680934" })
        #expect(Self.vectors.contains { $0.id == "2515012750420367858" })
        #expect(Self.vectors.contains { $0.id == "12154642911137703318" })
        #expect(transactions.contains { $0.type == .transfer })
        for chatType in ChatType.allCases {
            #expect(transactions.contains { $0.chat?.type == chatType }, "chat type \(chatType)")
        }
        #expect(transactions.contains { $0.type == .chat && $0.amount > 0 }, "an in-chat transfer")
    }
}
