/// The values a caller reads: each checks the kind at the reader first, and reads the value
/// whole or refuses it with where and why.
extension JSONReader {
    /// The kind of the value at the reader; nil when no value starts here.
    package var kind: Kind? {
        guard let byte else { return nil }
        return switch byte {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        default: nil
        }
    }

    /// Consumes a `null` and says so; anything else is left to be read.
    package mutating func readNull() throws(JSONReadError) -> Bool {
        guard kind == .null else { return false }
        try literal("null")
        return true
    }

    /// The `true` or `false` at the reader.
    package mutating func readBool() throws(JSONReadError) -> Bool {
        try expect(kind: .bool)
        if byte == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// The string at the reader, its escapes decoded; refused when it is not UTF-8.
    package mutating func readString() throws(JSONReadError) -> String {
        try expect(kind: .string)
        let start = index
        let text = try stringContent()
        guard let text = String(validating: text, as: UTF8.self) else {
            throw malformed("a string that is not UTF-8", at: start)
        }
        return text
    }

    /// A JSON integer (no fraction, no exponent) that fits `T`.
    package mutating func readInteger<T: FixedWidthInteger>(_: T.Type = T.self) throws(JSONReadError) -> T {
        try expect(kind: .number)
        let start = index
        try skipNumber()
        let digits = bytes[start..<index]
        if let value = Self.smallInteger(digits, as: T.self) { return value }
        guard !digits.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        else {
            throw failure("\(here) is not an integer")
        }
        guard let value = T(String(decoding: digits, as: UTF8.self)) else { throw failure("\(here) is out of range") }
        return value
    }

    /// A number as it is written, never through floating point.
    package mutating func readNumberLiteral() throws(JSONReadError) -> String {
        try expect(kind: .number)
        let start = index
        try skipNumber()
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// An integer written as a number or as a string of its digits, as nodes write counts
    /// and amounts (no sign but `-`).
    package mutating func readIntegerOrString<T: FixedWidthInteger>(_: T.Type = T.self) throws(JSONReadError) -> T {
        guard kind == .string else { return try readInteger() }
        if let value = readString(parsingBytes: { Self.smallInteger($0, as: T.self) }) { return value }
        let text = try readString()
        guard text.first != "+", let value = T(text) else {
            throw failure("\(here): expected an integer, got a string that is not one")
        }
        return value
    }

    /// The string at the reader made a value straight from its bytes (escapes decoded) by
    /// `parse`, which must take ASCII only, as they are not checked as UTF-8. Nil, the reader
    /// where it was, when no string is here or `parse` refuses it: read it then as text, to
    /// be told why.
    package mutating func readString<T>(parsingBytes parse: (ArraySlice<UInt8>) -> T?) -> T? {
        guard byte == UInt8(ascii: "\"") else { return nil }
        let start = index
        if let content = try? stringContent(), let value = parse(content) { return value }
        index = start
        return nil
    }

    /// Up to 18 ASCII digits, unsigned, as a `T` if it holds them: what `T(text)` makes of them,
    /// without the String. Anything else (a sign, more digits) is nil, for `T(text)` to judge.
    static func smallInteger<T: FixedWidthInteger>(_ digits: ArraySlice<UInt8>, as _: T.Type) -> T? {
        guard (1...18).contains(digits.count) else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int64(byte &- UInt8(ascii: "0"))
        }
        return T(exactly: value)
    }

    /// Passes over one value, checking it as it goes.
    package mutating func skipValue() throws(JSONReadError) {
        switch kind {
        case .object?, .array?: try skipContainer()
        default: try skipScalar()
        }
    }

    mutating func skipScalar() throws(JSONReadError) {
        switch kind {
        // Checked as JSON, not as UTF-8: `JSONDecoder` too reads only the strings it is asked for.
        case .string?: _ = try scanString()
        case .number?: try skipNumber()
        case .bool?: _ = try readBool()
        case .null?: _ = try readNull()
        case .object?, .array?, nil: throw malformed(Self.expectedValue)
        }
    }
}
