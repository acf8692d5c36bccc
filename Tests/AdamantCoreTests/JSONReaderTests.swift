import AdamantCore
import Foundation
import Testing

/// The node-answer reader (`JSONReader`, `Transaction(json:)`) against Foundation's
/// `JSONSerialization`: what the reader accepts, Foundation accepts, and Foundation's rewriting
/// of it (escapes decoded, whitespace dropped, members in its own order) reads the same.
@Suite("JSON reader")
struct JSONReaderTests {
    static func read(_ bytes: [UInt8]) throws(JSONReadError) -> Transaction { try Transaction(json: bytes) }

    static func foundationAccepts(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
    }

    /// The document as Foundation writes it back, read: nil when Foundation refuses it.
    static func rewritten(_ bytes: [UInt8]) -> Transaction? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)),
            let data = try? JSONSerialization.data(withJSONObject: object)
        else { return nil }
        return try? read(Array(data))
    }

    static func failure(_ text: String) -> String? {
        do {
            _ = try read(Array(text.utf8))
            return nil
        } catch { return error.description }
    }

    /// Every vector transaction (transfers, chats of each type, KVS states, legacy shapes), as
    /// the vectors write it and as `Transaction`'s encoder writes it back.
    @Test func everyVectorReadsAsRewritten() throws {
        let vectors = TransactionVectorTests.vectors
        try #require(vectors.count >= 10)
        for vector in vectors {
            let bytes = Array(vector.transaction.data)
            let expected = try Self.read(bytes)
            #expect(Self.rewritten(bytes) == expected, "\(vector.name)")
            let again = Array(try JSONEncoder().encode(expected))
            #expect(try Self.read(again) == expected, "\(vector.name), re-encoded")
        }
    }

    /// Node-style variants of one transaction: numbers as strings, nulls for what is absent,
    /// escapes, unknown keys of every kind, whitespace.
    @Test(arguments: [
        #"{"type":0,"amount":"100","senderPublicKey":"PK","recipientId":"","timestamp":5,"signature":"SIG","fee":"50000000","height":"7","confirmations":null,"asset":{}}"#,
        #"{"type":0,"amount":100,"senderPublicKey":"PK","recipientId":null,"timestamp":5,"signature":"SIG","asset":null,"extra":[1,{"a":[true,false,null]},-2.5e-3,"\u00e9\ud83d\ude00"]}"#,
        " {\n\t\"type\" : 0 , \"amount\":100,\"senderPublicKey\":\"PK\",\"timestamp\":5,\"signature\":\"SIG\",\"requesterPublicKey\":\"\",\"signSignature\":null } \n",
        #"{"\u0074ype":0,"amount":100,"senderPublicKey":"PK","timestamp":-5,"signature":"SIG","blockId":"\"x\\\/y\"","block_timestamp":"12"}"#,
    ])
    func variantsReadAsRewritten(_ template: String) throws {
        let key = String(repeating: "ab", count: 32)
        let signature = String(repeating: "cd", count: 64)
        let bytes = Array(
            template.replacingOccurrences(of: "SIG", with: signature).replacingOccurrences(of: "PK", with: key).utf8)
        let expected = try #require(Self.rewritten(bytes))
        #expect(try Self.read(bytes) == expected)
        #expect(expected.type == .transfer && expected.amount == 100 && abs(expected.timestamp) == 5)
        #expect(
            Self.failure(String(decoding: bytes, as: UTF8.self) + " {}")
                == "malformed JSON at byte \(bytes.count + 1): more text after the JSON value",
            "only whitespace may follow")
    }

    /// What the reader refuses, and says: the field by its path, and what about it.
    @Test(
        arguments: [
            (#"{"amount":1}"#, "type is missing"),
            (#"{"type":null}"#, "type is null"),
            (#"{"type":"0"}"#, "type is not an integer"),
            (#"{"type":1.5}"#, "type is not an integer"),
            (#"{"type":99999999999999999999}"#, "type is out of range"),
            (#"{"type":0,"type":0}"#, "type is given twice"),
            (#"{"type":0,"amount":"+5"}"#, "amount: expected an integer, got a string that is not one"),
            (#"{"type":0,"amount":1,"timestamp":4294967296}"#, "timestamp: outside the signed int32 range"),
            (#"{"type":0,"amount":1,"signature":"AB"}"#, "signature: not canonical hex"),
            (#"{"type":0,"amount":1,"recipientId":"U1x"}"#, nil),
            (
                #"{"type":8,"amount":0,"asset":{"chat":{"message":"00","type":7}}}"#,
                "asset.chat.type: unknown chat type 7"
            ),
            (#"{"type":8,"amount":0,"asset":{"chat":{"type":1}}}"#, "asset.chat.message is missing"),
            (#"{"type":8,"amount":0,"asset":[]}"#, "asset is not an object"),
            (
                #"{"type":0,"amount":1"#,
                "malformed JSON at byte 20: the text ends inside the JSON: expected ',' or '}' (a missing comma?)"
            ),
            (#"{"type":0,"amount":01}"#, "malformed JSON at byte 20: expected ',' or '}' (a missing comma?)"),
            (#"{"type":0,"x":"\ud800"}"#, "malformed JSON at byte 15: a lone UTF-16 surrogate escape"),
            (
                #"{"type":0,"x":"a\qb"}"#,
                "malformed JSON at byte 17: an unknown escape in a string (write \\\\ for a backslash)"
            ),
            (#"{"type":0 "amount":1}"#, "malformed JSON at byte 10: expected ',' or '}' (a missing comma?)"),
            (
                #"{"type":0,"x":tru}"#,
                "malformed JSON at byte 14: expected a value (a string in double quotes, a number, a list, an object, true, false or null)"
            ),
            (#"[]"#, "the answer is not an object"),
            (#"{"\u0074ype":null}"#, "type is null"),
            (#"{"type":0,"amount":1,"id":"01"}"#, #"id: "01": not a transaction id"#),
            (
                #"{"type":0,"amount":1,"id":"18446744073709551616"}"#,
                #"id: "18446744073709551616": not a transaction id"#
            ),
            (#"{"type":0,"amount":1,"senderPublicKey":"AB"}"#, nil),
            (#"{"type":0,"amount":1,"senderId":"U01"}"#, nil),
        ] as [(String, String?)])
    func refusalsNameTheField(_ json: String, _ message: String?) {
        let failure = Self.failure(json)
        if let message {
            #expect(failure == message)
        } else {
            let field = json.components(separatedBy: "\"").dropLast(3).last ?? ""
            #expect(failure?.hasPrefix("\(field): ") == true, "\(String(describing: failure))")
        }
    }

    /// Fuzz/Crashes/transaction/reader-key-invalid-utf8: a key of a field the reader skips held
    /// a byte that is not UTF-8 (`"confM\xF9rmations"`); Foundation refuses the document, so
    /// the reader must too.
    @Test func aKeyThatIsNotUTF8IsRefusedEvenUnread() throws {
        let found = Vectors.folder.deletingLastPathComponent().appendingPathComponent(
            "Fuzz/Crashes/transaction/reader-key-invalid-utf8")
        let bytes = Array(try Data(contentsOf: found))
        try #require(bytes.contains(0xF9))
        #expect(!Self.foundationAccepts(bytes))
        #expect(throws: JSONReadError.self) { try Self.read(bytes) }
        let valid = Array(#"{"type":0,"ok\#u{e9}":1}"#.utf8)  // a real two-byte character is fine
        #expect(Self.failure(String(decoding: valid, as: UTF8.self)) == "amount is missing")
    }

    /// Nesting past the bound is refused, not recursed into (no stack to exhaust).
    @Test func deepNestingIsRefused() {
        let deep = #"{"x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(Self.failure(deep) == "malformed JSON at byte 68: nested more than 64 deep")
    }

    /// A list of transactions and a page's envelope read as nodes answer.
    @Test func aListReadsEachTransactionWithItsPosition() throws {
        let transaction = try #require(TransactionVectorTests.vectors.first).transaction.data
        let body = Array(#"{"success":true,"transactions":["#.utf8) + Array(transaction) + Array(#",{"type":0}]}"#.utf8)
        let error = #expect(throws: JSONReadError.self) {
            try JSONReader.read(body) { reader throws(JSONReadError) in
                try reader.readObject { reader, key throws(JSONReadError) in
                    switch key {
                    case "transactions":
                        try reader.readArray { reader throws(JSONReadError) in _ = try Transaction(json: &reader) }
                    default: try reader.skipValue()
                    }
                }
            }
        }
        #expect(error?.description == "transactions[1].amount is missing")
    }

    /// Strings are passed over a word at a time: a quote, a backslash or a control character
    /// at any offset of a word, and bytes above 0x7F beside them, in a field read and in one
    /// skipped. What the reader takes reads as Foundation rewrites it; it refuses a control
    /// character standing unescaped, and bytes that are not UTF-8 only where it reads them.
    @Test(arguments: ["blockId", "skipped"])
    func everyOffsetOfAStringReadsAsRewritten(_ field: String) throws {
        let key = String(repeating: "ab", count: 32)
        let signature = String(repeating: "cd", count: 64)
        let head =
            #"{"type":0,"amount":1,"senderPublicKey":"\#(key)","timestamp":5,"signature":"\#(signature)","\#(field)":""#
        for offset in 0..<20 {
            let filler = Array(repeating: UInt8(ascii: "x"), count: offset)
            for tail: [UInt8] in [
                [], Array(#"\""#.utf8), Array(#"\\"#.utf8), [0x01], [0x1F], [0x7F], Array("é".utf8), [0xC3],
            ] {
                let bytes = Array(head.utf8) + filler + tail + Array(#"x"}"#.utf8)
                let read = try? Self.read(bytes)
                if let read, let rewritten = Self.rewritten(bytes) {
                    #expect(read == rewritten, "offset \(offset), \(tail)")
                }
                switch tail {
                case [0x01], [0x1F]: #expect(read == nil, "offset \(offset): a control character stands unescaped")
                case [0xC3]:
                    #expect(
                        (read == nil) == (field == "blockId"), "offset \(offset): not UTF-8, refused only where read")
                default: #expect(read != nil, "offset \(offset), \(tail)")
                }
            }
        }
    }

    /// A skipped value is checked by the grammar `readObject` and `readArray` read with: each of
    /// these is refused, as Foundation refuses it, but for a trailing comma, which Foundation
    /// takes (as the reader's lenient rules do, for files people edit).
    @Test(arguments: [
        #"[1,]"#, #"{"a":1,}"#, #"{"a"}"#, #"{1:2}"#, #"[1 2]"#, #"{"a":1 "b":2}"#, #"[}"#, #"{]"#, #"[]]"#,
        #"{"a":[1,{"b":nul}]}"#, #"[,1]"#, #"{,"a":1}"#, #"{"a":}"#, #"{"a"::1}"#, #"[01]"#, #"[1.]"#, #"["a\x"]"#,
        #"{"\#u{FFFF}":1"#, "[",
    ])
    func malformedSkippedValuesAreRefused(_ value: String) {
        let json = #"{"type":0,"skipped":"# + value + "}"
        #expect(Self.failure(json)?.hasPrefix("malformed JSON at byte ") == true)
        if !value.hasSuffix(",]") && !value.hasSuffix(",}") { #expect(!Self.foundationAccepts(Array(json.utf8))) }
    }

    /// Skipped containers, nested and empty, with whitespace everywhere, read as rewritten.
    @Test func nestedSkippedValuesReadAsRewritten() throws {
        let key = String(repeating: "ab", count: 32)
        let signature = String(repeating: "cd", count: 64)
        let skipped =
            #" { "a" : [ 1 , { } , [ ] , { "b" : [ [ "x" , null , true , false , -0.5e+2 ] ] } ] , "c" : { "d" : { } } } "#
        let json =
            #"{"s":\#(skipped),"type":0,"amount":1,"senderPublicKey":"\#(key)","timestamp":5,"signature":"\#(signature)","t":[[],[{}]]}"#
        let expected = try #require(Self.rewritten(Array(json.utf8)))
        #expect(try Self.read(Array(json.utf8)) == expected)
    }

    /// The nesting bound holds in a skipped value as in a read one: 63 levels below the
    /// transaction are passed over, 64 are refused.
    @Test func theNestingBoundHoldsInASkippedValue() {
        func nested(_ levels: Int) -> String {
            #"{"type":0,"x":"# + String(repeating: #"[{"k":"#, count: levels / 2) + (levels % 2 == 1 ? "[]" : "0")
                + String(repeating: "}]", count: levels / 2) + "}"
        }
        #expect(Self.failure(nested(63)) == "amount is missing")
        #expect(Self.failure(nested(64))?.hasSuffix(": nested more than 64 deep") == true)
        #expect(Self.failure(nested(62)) == "amount is missing")
    }

    /// Fields parsed from their bytes (keys, ids, addresses, hex, integers as strings) read
    /// as rewritten when written with escapes, and integers in strings with leading zeros.
    @Test func escapedFieldsReadAsRewritten() throws {
        let key = String(repeating: "ab", count: 32)
        let signature = String(repeating: "cd", count: 64)
        let json =
            #"{"type":0,"amount":"007","senderPublicKey":"\u0061b\#(key.dropFirst(2))","timestamp":5,"#
            + #""signature":"\#(signature.dropLast(2))c\u0064","id":"1\u0032","senderId":"\u00551","recipientId":"U\u0031","fee":"\u0031"}"#
        let expected = try #require(Self.rewritten(Array(json.utf8)))
        #expect(try Self.read(Array(json.utf8)) == expected)
        #expect(expected.id == TransactionID(number: 12) && expected.amount == 7 && expected.fee == 1)
    }
}
