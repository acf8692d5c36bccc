import AdamantCore
import Foundation
import Testing

@Suite("KVS state transactions (type 9)")
struct StateTransactionTests {
    static let owner = KeyPair.random()

    static func signed(key: String = "contact_list", value: String = "v", type: Int32 = 0) throws -> Transaction {
        try Transaction.state(key: key, value: value, type: type, timestamp: 276_000_000, signedBy: owner)
    }

    /// docs/protocol.md §4.2, written out by hand: value, key, type LE, after the 53-byte header
    /// with no recipient.
    @Test func signedBytesFollowTheLayout() throws {
        let transaction = try Self.signed(key: "k€", value: "ü1", type: 1)
        var expected: [UInt8] =
            [9, 0x00, 0x6d, 0x73, 0x10] + Self.owner.publicKey.bytes + [UInt8](repeating: 0, count: 16)
        expected += [0xc3, 0xbc, 0x31] + [0x6b, 0xe2, 0x82, 0xac] + [1, 0, 0, 0]
        #expect(Hex.encode(try transaction.unsignedBytes()) == Hex.encode(expected))
        let keyless = try Self.signed(key: "", value: "ü1")
        #expect(try keyless.unsignedBytes().suffix(7) == [0xc3, 0xbc, 0x31, 0, 0, 0, 0])
    }

    @Test func builderSignsAndVerifies() throws {
        let transaction = try Self.signed()
        #expect(transaction.recipientId == nil && transaction.amount == 0)
        #expect(try transaction.verify() == transaction.id)
        #expect(transaction.submissionPath == "/api/states/store")
    }

    /// A node that changes the value, key or type breaks the signature.
    @Test(arguments: ["value", "key"])
    func tamperedTextFailsVerification(_ field: String) throws {
        var transaction = try Self.signed()
        if field == "value" { transaction.state!.value += "x" } else { transaction.state!.key += "x" }
        #expect(throws: TransactionError.invalidSignature) { try transaction.verify() }
    }

    @Test func tamperedTypeFailsVerification() throws {
        var transaction = try Self.signed()
        transaction.state!.type = 1
        #expect(throws: TransactionError.invalidSignature) { try transaction.verify() }
    }

    /// docs/protocol.md §5.1: Node's hex decoding decides the fee; non-hex text costs one unit
    /// whatever its length.
    static let feeCases: [(String, Int64)] = [
        ("0x84609a38fedbcd02b657233340e6a8cb09db61a8", 100_000),
        (String(repeating: "ab", count: 764), 100_000),
        (String(repeating: "AB", count: 765), 200_000),
        (String(repeating: "cd", count: 500) + "zz" + String(repeating: "cd", count: 900), 100_000),
        (String(repeating: "cd", count: 765) + "c", 200_000),
        (String(repeating: "z", count: 20_000), 100_000),
        (String(repeating: "ef", count: 10_240), 2_600_000),
    ]

    @Test(arguments: feeCases)
    func feeCountsNodeHexBytes(_ value: String, _ fee: Int64) throws {
        #expect(try Self.signed(value: value).fee == fee)
    }

    static let ruleCases: [(String, String, Int32, TransactionError)] = [
        ("k", "  ", 0, .blankStateValue),
        ("k", "", 0, .blankStateValue),
        ("k", " v", 0, .blankStateValue),
        ("k", "v\n", 0, .blankStateValue),
        ("k", "\u{FEFF}v", 0, .blankStateValue),
        ("k", "v", 2, .invalidStateType(2)),
        ("k", "v", -1, .invalidStateType(-1)),
        (String(repeating: "é", count: 21), "v", 0, .stateKeyTooLong(21)),
        ("k", String(repeating: "😀", count: 10_241), 0, .stateValueTooLong(20_482)),
    ]

    @Test(arguments: ruleCases)
    func nodeRulesAreChecked(_ key: String, _ value: String, _ type: Int32, _ error: TransactionError) throws {
        #expect(throws: error) { try Self.signed(key: key, value: value, type: type) }
    }

    @Test func limitsAreInclusive() throws {
        _ = try Self.signed(key: String(repeating: "é", count: 20), value: String(repeating: "😀", count: 10_240))
    }

    @Test func noAmountAndNoRecipient() throws {
        var transaction = try Self.signed()
        transaction.amount = 1
        #expect(throws: TransactionError.amountOutOfRange) { try transaction.validate() }
        transaction.amount = 0
        transaction.recipientId = Self.owner.address
        #expect(throws: TransactionError.unexpectedRecipient) { try transaction.validate() }
        transaction.recipientId = nil
        transaction.state = nil
        #expect(throws: TransactionError.missingStateAsset) { try transaction.validate() }
        #expect(throws: TransactionError.missingStateAsset) { try transaction.unsignedBytes() }
    }

    /// The node lists states with `key` and `type`; the submit body carries `asset.state`.
    @Test func jsonRoundTripsAndSubmits() throws {
        let transaction = try Self.signed(key: "", value: "plain")
        let body = try JSONSerialization.jsonObject(with: Data(transaction.submissionBody())) as! [String: Any]
        let submitted = body["transaction"] as! [String: Any]
        #expect(submitted["recipientId"] == nil)
        let state = (submitted["asset"] as! [String: Any])["state"] as! [String: Any]
        #expect(state["key"] as? String == "" && state["value"] as? String == "plain" && state["type"] as? Int == 0)
        let again = try Transaction(json: Array(JSONEncoder().encode(transaction)))
        #expect(again == transaction)
    }

    @Test(arguments: [
        #"{"value":"v","type":4294967296}"#, #"{"value":5,"type":0}"#, #"{"key":7,"value":"v","type":0}"#,
        #"{"key":"k","type":0}"#, #"{"value":"v"}"#, #"{"value":"v","type":"0"}"#,
    ])
    func malformedStateAssetsDoNotDecode(_ state: String) throws {
        let transaction = try Self.signed()
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(transaction)) as! [String: Any]
        object["asset"] = ["state": try JSONSerialization.jsonObject(with: Data(state.utf8))]
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: JSONReadError.self) { try Transaction(json: Array(data)) }
    }
}
