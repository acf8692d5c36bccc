import AdamantCore
import Testing

@testable import AdamantFetch

@Suite("Render: bounded JSON reader")
struct RenderJSONTests {
    @Test func readsEveryKindOfValue() {
        let value = JSONValue(
            parsing:
                #" {"s":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\udc4d","n":-0.5e+3,"i":0,"t":true,"f":false,"z":null,"a":[1,[],{}]} "#
        )
        #expect(
            value == [
                "s": .string("a\"\\/\u{8}\u{C}\n\r\t\u{E9}👍"),
                "n": .number("-0.5e+3"), "i": .number("0"), "t": .bool(true), "f": .bool(false), "z": .null,
                "a": .array([.number("1"), .array([]), .object([])]),
            ])
    }

    @Test(arguments: ["0.0020", "12345678901234567890123456789", "1E5", "-0"])
    func aNumberKeepsItsLiteral(_ literal: String) {
        #expect(JSONValue(parsing: "[\(literal)]") == .array([.number(literal)]))
    }

    @Test(arguments: ["01", "1.", ".5", "+1", "-", "1e", "1e+", "0x1", "NaN", "Infinity", "1_000", "--1"])
    func anInvalidNumberIsRefused(_ literal: String) {
        #expect(JSONValue(parsing: "[\(literal)]") == nil)
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() {
        #expect(JSONValue(parsing: #""\ud83d""#) == .string("\u{FFFD}"))
        #expect(JSONValue(parsing: #""\udc4d x""#) == .string("\u{FFFD} x"))
        #expect(JSONValue(parsing: #""\ud83d\u0041""#) == .string("\u{FFFD}A"))
        #expect(JSONValue(parsing: #""\ud83d\ud83d\udc4d""#) == .string("\u{FFFD}👍"))
        #expect(JSONValue(parsing: #""\u0000""#) == .string("\u{0}"))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "[,1]", #"{"a" 1}"#, #"{"a":1 "b":2}"#, #"{1:2}"#, "nul", "tru", "[1] [2]",
        #""\u12""#, #""\uZZZZ""#, #""\q""#, "\"a\u{0}b\"", "\"a\nb\"", #""unterminated"#, "'a'",
    ])
    func invalidJSONIsRefused(_ text: String) {
        #expect(JSONValue(parsing: text) == nil)
    }

    @Test func nestingIsBoundedAtThirtyTwoLevels() {
        func nested(_ depth: Int) -> String {
            String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        }
        #expect(JSONValue(parsing: nested(JSONValue.maximumDepth)) != nil)
        #expect(JSONValue(parsing: nested(JSONValue.maximumDepth + 1)) == nil)
        let objects = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
        #expect(JSONValue(parsing: objects) == nil)
        #expect(JSONValue(parsing: String(objects.dropFirst(5).dropLast())) != nil)
    }

    @Test func sizeIsBoundedAtSixtyFourKibibytes() {
        func string(bytes: Int) -> String { "\"" + String(repeating: "x", count: bytes - 2) + "\"" }
        #expect(JSONValue(parsing: string(bytes: JSONValue.maximumBytes)) != nil)
        #expect(JSONValue(parsing: string(bytes: JSONValue.maximumBytes + 1)) == nil)
    }

    @Test func theLastDuplicateKeyWinsInTheFirstOnesPlace() {
        #expect(JSONValue(parsing: #"{"a":1,"a":{"b":2},"a":"last"}"#) == ["a": .string("last")])
        #expect(JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#) == ["a": 3, "b": 2])
    }

    @Test func aDeepInputUnderTheSizeBoundIsRefusedQuickly() {
        let started = ContinuousClock.now
        #expect(JSONValue(parsing: String(repeating: "[", count: JSONValue.maximumBytes)) == nil)
        #expect(JSONValue(parsing: String(repeating: #"{"":"#, count: JSONValue.maximumBytes / 4)) == nil)
        #expect(ContinuousClock.now - started < .seconds(1))
    }
}
