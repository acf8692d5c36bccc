import Foundation
import Testing

@testable import AdamantCore

/// `JSONCoding` stands in for Foundation's coders in the commands; Foundation is the reference.
@Suite struct JSONCodingTests {
    struct Report: Codable, Equatable {
        struct Node: Codable, Equatable {
            var url: String
            var height: Int64?
            var healthy: Bool
        }
        var zeta: UInt64
        var alpha: Int64
        var text: String
        var nodes: [Node]
        var counts: [String: Int]
        var nothing: String?
        var empty: [Int]
        var nested: [[Bool]]
    }

    static let report = Report(
        zeta: .max, alpha: .min,
        text: "quote \" backslash \\ slash / controls \u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F} é 👍 \u{2028}",
        nodes: [
            .init(url: "http://127.0.0.1:36666/adm", height: 42, healthy: true),
            .init(url: "https://n", height: nil, healthy: false),
        ],
        counts: ["b": 2, "a": 1, "a_b": 3, "aa": 4, "": 0], nothing: nil, empty: [],
        nested: [[true], [], [false, true]])

    private static func foundationJSON(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    @Test func writesWhatJSONEncoderWrites() throws {
        #expect(
            String(decoding: try JSONCoding.encode(Self.report), as: UTF8.self)
                == String(decoding: try Self.foundationJSON(Self.report), as: UTF8.self))
        #expect(try JSONCoding.encode([Int]()) == Self.foundationJSON([Int]()))
        #expect(try JSONCoding.encode("a/b") == Self.foundationJSON("a/b"))
        #expect(try JSONCoding.encode(Optional<Int>.none) == Array("null".utf8))
    }

    /// What is written is what was read: members in order, numbers as written.
    @Test func writesAValueAsItWasRead() throws {
        let text = #"{"z":1,"a":[0.50,-1e3,"\u0001/é\"",null,true],"m":{},"":false}"#
        let value = try JSONReader.read(Array(text.utf8)) { reader throws(JSONReadError) in
            try AdamantCore.JSONValue(json: &reader, keyNamedTwice: .refused)
        }
        #expect(value.text == text)
    }

    @Test func readsWhatItWrites() throws {
        #expect(try JSONCoding.decode(Report.self, from: JSONCoding.encode(Self.report)) == Self.report)
    }

    @Test func writesTransactionsAsJSONEncoderDoes() throws {
        let vectors = TransactionVectorTests.vectors
        #expect(vectors.count > 10)
        for vector in vectors {
            let ours = try Transaction(json: Array(vector.transaction.data))
            #expect(try JSONCoding.encode(ours) == Self.foundationJSON(ours), "\(vector.name)")
        }
    }

    /// `-123456789012345678.0` was found by the coding fuzz target: read through a `Double`,
    /// it lost its last digits, where `JSONDecoder` reads them all.
    @Test(arguments: [
        ("12", 12), ("-3", -3), ("-0", 0), ("1.0", 1), ("1e3", 1000), ("2.5e1", 25), ("9223372036854775807", Int64.max),
        ("-123456789012345678.0", -123_456_789_012_345_678), ("100e-2", 1), ("0e-5", 0), ("-0.0", 0), ("0.0e9999", 0),
    ])
    func readsIntegersHeldExactly(literal: String, expected: Int64) throws {
        #expect(try JSONCoding.decode([Int64].self, from: Array("[\(literal)]".utf8)) == [expected])
        #expect(try JSONDecoder().decode([Int64].self, from: Data("[\(literal)]".utf8)) == [expected])
    }

    /// Where `JSONDecoder` is not exact, `JSONCoding` is: it reads the extremes written with a
    /// fraction, and refuses what is no integer (`JSONDecoder` truncates it through `Decimal`).
    @Test func readsExactlyWhereJSONDecoderDoesNot() throws {
        #expect(
            try JSONCoding.decode([Int64].self, from: Array("[-9223372036854775808.000,92233720368547758.07e2]".utf8))
                == [.min, .max])
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode([Int64].self, from: Array("[12345678901234567.5]".utf8))
        }
        #expect(
            try JSONDecoder().decode([Int64].self, from: Data("[12345678901234567.5]".utf8)) == [12_345_678_901_234_567]
        )
    }

    @Test(arguments: [
        "1.5", "9223372036854775808", "1e19", "-1e400", "\"5\"", "true", "1e-1", "100e-3", "92233720368547758.08e2",
    ])
    func refusesIntegersNotHeld(literal: String) {
        #expect(throws: DecodingError.self) { try JSONCoding.decode([Int64].self, from: Array("[\(literal)]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Int64].self, from: Data("[\(literal)]".utf8)) }
    }

    /// The case and the coding path, which is what callers show.
    private static func shape(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "keyNotFound \(path(context.codingPath + [key]))"
        case .valueNotFound(_, let context): return "valueNotFound \(path(context.codingPath))"
        case .typeMismatch(_, let context): return "typeMismatch \(path(context.codingPath))"
        case .dataCorrupted(let context): return "dataCorrupted \(path(context.codingPath))"
        @unknown default: return "unknown"
        }
    }

    @Test(arguments: [
        (
            #"{"zeta":1,"alpha":1,"text":"t","nodes":[{"url":"u","healthy":true},{"healthy":false}],"counts":{},"empty":[],"nested":[]}"#,
            "keyNotFound nodes.1.url"
        ),
        (#"{"zeta":1,"alpha":null,"text":"t","nodes":[],"counts":{},"empty":[],"nested":[]}"#, "valueNotFound alpha"),
        (#"{"zeta":1,"alpha":1,"text":5,"nodes":[],"counts":{},"empty":[],"nested":[]}"#, "typeMismatch text"),
        (
            #"{"zeta":1,"alpha":1,"text":"t","nodes":[],"counts":{"x":"1"},"empty":[],"nested":[]}"#,
            "typeMismatch counts.x"
        ),
        (
            #"{"zeta":1,"alpha":1,"text":"t","nodes":[],"counts":{},"empty":[],"nested":[[1]]}"#,
            "typeMismatch nested.0.0"
        ),
        (#"{"zeta":1,"alpha":1,"text":"t","nodes":{},"counts":{},"empty":[],"nested":[]}"#, "typeMismatch nodes"),
        (#"[1]"#, "typeMismatch "),
        (#"{"zeta":1,"alpha":1,"#, "dataCorrupted "),
        (#"{"zeta":1} x"#, "dataCorrupted "),
    ])
    func failsWhereJSONDecoderFails(document: String, expected: String) {
        var ours = "decoded"
        do { _ = try JSONCoding.decode(Report.self, from: Array(document.utf8)) } catch { ours = Self.shape(of: error) }
        var foundation = "decoded"
        do { _ = try JSONDecoder().decode(Report.self, from: Data(document.utf8)) } catch {
            foundation = Self.shape(of: error)
        }
        #expect(ours == expected)
        #expect(foundation == expected)
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: DecodingError.self) { try JSONCoding.decode(String.self, from: [0x22, 0xF9, 0x22]) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(String.self, from: Data([0x22, 0xF9, 0x22])) }
    }

    @Test func refusesNumbersJSONCannotHold() throws {
        #expect(throws: EncodingError.self) { try JSONCoding.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONCoding.encode(["x": Double.infinity]) }
        #expect(try JSONCoding.decode([Double].self, from: Array("[0.5,-2e3]".utf8)) == [0.5, -2000])
        // JSON allows `0e3`; JSONDecoder refuses it as a Double (Fuzz/Crashes/coding/foundation-refuses-0e3).
        #expect(try JSONCoding.decode([Double].self, from: Array("[0e3,-0E-2]".utf8)) == [0, 0])
    }

    /// Files people edit are read as `JSONDecoder` reads them; node answers are read strictly.
    @Test(arguments: ["\u{FEFF}{\"a\":[1]}", #"{"a":[1,]}"#, #"{"a":[1 , ] , }"#])
    func leniencyIsJSONDecodersAndOnlyWhenAsked(document: String) throws {
        struct A: Decodable, Equatable { var a: [Int] }
        let bytes = Array(document.utf8)
        #expect(try JSONDecoder().decode(A.self, from: Data(bytes)) == A(a: [1]))
        #expect(throws: DecodingError.self) { try JSONCoding.decode(A.self, from: bytes) }
        #expect(try JSONCoding.decode(A.self, from: bytes, lenient: true) == A(a: [1]))
    }

    @Test(arguments: ["[,]", "[1,,]", "\u{FEFF}\u{FEFF}[]", "[1,] x"])
    func leniencyStopsThere(document: String) {
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode([Int].self, from: Array(document.utf8), lenient: true)
        }
    }

    @Test func ofAKeyNamedTwiceTheFirstCountsAsWithJSONDecoder() throws {
        struct A: Decodable, Equatable { var a: Int }
        let document = Array(#"{"a":1,"a":2}"#.utf8)
        #expect(try JSONCoding.decode(A.self, from: document) == A(a: 1))
        #expect(try JSONDecoder().decode(A.self, from: Data(document)) == A(a: 1))
    }

    /// Found by the coding fuzz target (Fuzz/Crashes/coding/lone-surrogate): `JSONDecoder`
    /// refuses a lone surrogate escape, which rich messages read as U+FFFD.
    @Test(arguments: [#"["\ud800"]"#, #"["\udc00"]"#, #"["\ud83d\u0041"]"#])
    func aLoneSurrogateIsRefusedAsJSONDecoderRefusesIt(document: String) throws {
        #expect(throws: DecodingError.self) { try JSONCoding.decode([String].self, from: Array(document.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([String].self, from: Data(document.utf8)) }
        #expect(try JSONCoding.decode([String].self, from: Array(#"["\ud83d\udc4d"]"#.utf8)) == ["👍"])
    }
}
