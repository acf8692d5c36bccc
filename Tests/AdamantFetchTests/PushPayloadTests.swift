import AdamantCore
import Foundation
import Testing

@testable import AdamantFetch

@Suite("Push payloads")
struct PushPayloadTests {
    static let me = KeyPair(passphrase: Passphrase(unvalidated: "payload tests"))
    static let friend = KeyPair(passphrase: Passphrase(unvalidated: "payload friend"))
    static let transaction: Transaction = {
        let asset = try! ChatKey(secretKey: friend.secretKey, partner: me.publicKey).seal("hi")
        var transaction = try! Transaction.chat(asset, to: me.address, timestamp: 1_000, signedBy: friend)
        transaction.id = try! transaction.computedID()
        return transaction
    }()
    static var id: TransactionID { transaction.id! }
    static var transactionJSON: String { String(decoding: try! JSONEncoder().encode(transaction), as: UTF8.self) }

    static func parse(_ text: String) throws(PushPayloadError) -> PushPayload {
        try PushPayload(json: Array(text.utf8))
    }

    @Test func theCSharpServicesAPNsPush() throws {
        let payload = try Self.parse(
            """
            {"aps":{"alert":{"loc-key":"NotificationsService.NewMessage.BodySingle"},"badge":1,"sound":"notification.mp3","mutable-content":1},
             "txn-id":"\(Self.id)","push-recipient":"\(Self.me.address)"}
            """)
        #expect(payload == PushPayload(id: Self.id, recipient: Self.me.address))
    }

    @Test(arguments: [
        "{\"data\":{\"txn\":%@}}", "{\"message\":{\"token\":\"t\",\"data\":{\"txn\":%@}}}", "{\"aps\":{},\"txn\":%@}",
    ])
    func aCarriedTransactionAsAStringOrAnObject(_ template: String) throws {
        let asString = String(decoding: try JSONEncoder().encode(Self.transactionJSON), as: UTF8.self)
        for carried in [asString, Self.transactionJSON] {
            let payload = try Self.parse(template.replacingOccurrences(of: "%@", with: carried))
            #expect(payload.id == Self.id)
            #expect(payload.transaction == Self.transaction)
        }
    }

    @Test func fcmWithAnIdOnlyAndANumericId() throws {
        #expect(try Self.parse("{\"data\":{\"txn-id\":\"\(Self.id)\"}}").id == Self.id)
        #expect(try Self.parse("{\"txn-id\":12345}").id == TransactionID(number: 12345))
    }

    /// adamant-ns (the web and Android apps' service) sends `txn-id` and `push-recipient` beside
    /// `txn` as fixed placeholders: beside a carried transaction they are neither read nor
    /// judged, whatever they hold and wherever they stand, before `txn` or after it.
    @Test(
        arguments: ["{\"data\":%@}", "{\"message\":{\"token\":\"t\",\"data\":%@}}", "%@"],
        [
            #""txn-id":"0","push-recipient":"U0000000000000000000""#,
            #""txn-id":"txn-id","push-recipient":"push-recipient""#,
            #""txn-id":"7","push-recipient":"U1""#, #""txn-id":7,"push-recipient":5"#,
            #""txn-id":{"x":[1]},"push-recipient":null"#, #""txn-id":"18446744073709551616""#,
        ])
    func adamantNSPlaceholdersBesideACarriedTransactionAreIgnored(_ level: String, _ placeholders: String) throws {
        let carried = String(decoding: try JSONEncoder().encode(Self.transactionJSON), as: UTF8.self)
        for fields in ["\(placeholders),\"txn\":\(carried)", "\"txn\":\(carried),\(placeholders)"] {
            let payload = try Self.parse(level.replacingOccurrences(of: "%@", with: "{\(fields)}"))
            #expect(payload == PushPayload(id: Self.id, transaction: Self.transaction))
        }
    }

    /// Another transaction's id beside a carried transaction is a placeholder too: the push is
    /// the carried transaction's, and the other id is nowhere in it.
    @Test func anotherIdBesideACarriedTransactionIsNotThePushs() throws {
        let payload = try Self.parse(
            "{\"txn-id\":\"7\",\"push-recipient\":\"\(Self.friend.address)\",\"txn\":\(Self.transactionJSON)}")
        #expect(payload == PushPayload(id: Self.id, transaction: Self.transaction))
        #expect(payload.recipient == nil, "not the placeholder's: the transaction says whom it is for")
    }

    /// With no id of its own a carried transaction names none: a `txn-id` beside it is no
    /// stand-in, as it may be a placeholder.
    @Test func aCarriedTransactionWithoutAnIdIsRefused() throws {
        var transaction = Self.transaction
        transaction.id = nil
        let json = String(decoding: try JSONEncoder().encode(transaction), as: UTF8.self)
        #expect(!json.contains("\"id\""))
        for text in ["{\"txn\":\(json)}", "{\"data\":{\"txn-id\":\"\(Self.id)\",\"txn\":\(json)}}"] {
            let error = #expect(throws: PushPayloadError.self) { try Self.parse(text) }
            guard case .invalid("txn", let reason)? = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(reason == "has no \"id\"")
        }
    }

    /// Without `txn`, as the C# service sends an APNs push, both fields are the push's and are
    /// judged: a placeholder there is refused.
    @Test(arguments: [
        (#"{"txn-id":"txn-id","push-recipient":"push-recipient"}"#, "txn-id"),
        (#"{"push-recipient":"push-recipient","txn-id":"1"}"#, "push-recipient"),
        (#"{"data":{"txn-id":"1","push-recipient":"push-recipient"}}"#, "push-recipient"),
        (#"{"push-recipient":"push-recipient","data":{"txn-id":"1"}}"#, "push-recipient"),
    ])
    func withoutACarriedTransactionBothFieldsAreJudged(_ text: String, _ field: String) {
        let error = #expect(throws: PushPayloadError.self) { try Self.parse(text) }
        guard case .invalid(let named, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(named == field)
    }

    @Test(arguments: [
        ("", PushPayloadError.notJSON), ("{\"txn-id\":", .notJSON), ("[1]", .notAnObject), ("\"txn-id\"", .notAnObject),
        ("{}", .noTransaction),
        ("{\"aps\":{}}", .noTransaction), ("{\"message\":{\"data\":{\"data\":{\"txn-id\":\"1\"}}}}", .noTransaction),
        ("{\"txn-id\":null}", .noTransaction),
    ])
    func notAPush(_ text: String, _ expected: PushPayloadError) {
        #expect(throws: expected) { try Self.parse(text) }
    }

    @Test(arguments: [
        ("{\"txn-id\":\"-1\"}", "txn-id"), ("{\"txn-id\":\"18446744073709551616\"}", "txn-id"),
        ("{\"txn-id\":1.5}", "txn-id"),
        ("{\"txn-id\":{}}", "txn-id"), ("{\"txn-id\":\"1\",\"push-recipient\":\"U12x\"}", "push-recipient"),
        ("{\"txn-id\":\"1\",\"push-recipient\":5}", "push-recipient"), ("{\"txn\":\"{\\\"type\\\":8}\"}", "txn"),
        ("{\"txn\":\"not json\"}", "txn"), ("{\"txn\":[]}", "txn"),
        // Under data or message.data, as FCM sends them: named too, not "no transaction".
        ("{\"data\":{\"txn\":\"garbage\"}}", "txn"), ("{\"message\":{\"data\":{\"txn-id\":\"x\"}}}", "txn-id"),
    ])
    func badFieldsAreNamed(_ text: String, _ field: String) {
        let error = #expect(throws: PushPayloadError.self) { try Self.parse(text) }
        guard case .invalid(let named, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(named == field)
    }

    /// Each level a push may carry its keys at, with each bad value a field can hold: the error
    /// names the field and says why, in one line, wherever the field stands.
    @Test(
        arguments: ["%@", "{\"data\":%@}", "{\"message\":{\"token\":\"t\",\"data\":%@}}"],
        [
            (#"{"txn":"garbage"}"#, "txn", "is not a transaction: malformed JSON at byte 0: expected a value"),
            (#"{"txn":"{\"type\":8}"}"#, "txn", "is not a transaction: amount is missing"),
            (#"{"txn":{"type":8}}"#, "txn", "is not a transaction: "),
            (#"{"txn":7}"#, "txn", "is not a transaction: "),
            (#"{"txn-id":"x1"}"#, "txn-id", "is not a transaction id (digits below 2^64)"),
            (#"{"txn-id":-1}"#, "txn-id", "is not a transaction id (digits below 2^64)"),
            (#"{"txn-id":"-1"}"#, "txn-id", "is not a transaction id (digits below 2^64)"),
            (#"{"txn-id":18446744073709551616}"#, "txn-id", "is not a transaction id (digits below 2^64)"),
            (#"{"txn-id":"18446744073709551616"}"#, "txn-id", "is not a transaction id (digits below 2^64)"),
            (#"{"txn-id":true}"#, "txn-id", "is not a transaction id (digits below 2^64)"),
            (#"{"txn-id":"1","push-recipient":"U1x"}"#, "push-recipient", "is not an ADAMANT address: "),
        ])
    func aBadFieldIsNamedAtEveryLevel(_ level: String, _ bad: (fields: String, field: String, reason: String)) {
        let error = #expect(throws: PushPayloadError.self) {
            try Self.parse(level.replacingOccurrences(of: "%@", with: bad.fields))
        }
        guard case .invalid(let named, let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(named == bad.field && reason.hasPrefix(bad.reason), "\(reason)")
        #expect(error.map { !"\($0)".contains("\n") } == true)
    }

    @Test(arguments: ["%@", "{\"data\":%@}", "{\"message\":{\"data\":%@}}"])
    func aGoodIdIsReadAtEveryLevelAsANumberOrAString(_ level: String) throws {
        for id in ["12345", "\"12345\""] {
            #expect(
                try Self.parse(level.replacingOccurrences(of: "%@", with: "{\"txn-id\":\(id)}")).id
                    == TransactionID(number: 12345))
        }
    }

    @Test func hostileSizesAndNestingAreRefusedWithoutATrap() {
        #expect(throws: PushPayloadError.tooLarge(PushPayload.maximumSize + 1)) {
            try PushPayload(json: [UInt8](repeating: 0x20, count: PushPayload.maximumSize + 1))
        }
        let deep =
            "{\"aps\":" + String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
            + ",\"txn-id\":\"1\"}"
        #expect(throws: PushPayloadError.tooDeep) { try Self.parse(deep) }
        // 32 levels are read (and carry nothing); 33 are refused as too deep, not as "not JSON".
        let levels = { (count: Int) in
            String(repeating: "{\"data\":", count: count - 1) + "{}" + String(repeating: "}", count: count - 1)
        }
        #expect(throws: PushPayloadError.noTransaction) { try Self.parse(levels(32)) }
        #expect(throws: PushPayloadError.tooDeep) { try Self.parse(levels(33)) }
    }
}
