/// A forward-only reader of one JSON document, the one JSON grammar of the package. It is made
/// for the node answers a watch or a fetch reads on every push (a page of 100 transactions cost
/// more in `Codable`'s generic machinery than in the JSON itself): values are read where they
/// stand, keys are compared as bytes, and nothing is built that the caller does not ask for;
/// the one tree, `JSONValue`, is built by it. What is skipped is still checked, so a
/// document it accepts by the strict rules is one `JSONDecoder` accepts too (the coding fuzz
/// target holds it to that).
///
/// Every read checks the index first and nesting is bounded: no input traps. A refusal of the
/// grammar carries the byte offset and what was expected there.
package struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var path: [Step] = []
    private let rules: Rules

    /// Where readers of JSON differ, whose reading to follow.
    package struct Rules: Sendable {
        /// Containers nested deeper are refused before they are entered.
        package var maximumDepth = 64
        /// A leading byte order mark and a comma before `]` or `}`, as `JSONDecoder` takes
        /// them: for files people edit.
        package var lenient = false
        /// A lone UTF-16 surrogate escape read as U+FFFD, as the web clients' `JSON.parse`
        /// reads it, rather than refused.
        package var replacesLoneSurrogates = false

        /// Node answers: deeper than any (a transaction's asset is three levels down), strict.
        package static let nodeAnswer = Rules()

        package init(maximumDepth: Int = 64, lenient: Bool = false, replacesLoneSurrogates: Bool = false) {
            self.maximumDepth = maximumDepth
            self.lenient = lenient
            self.replacesLoneSurrogates = replacesLoneSurrogates
        }
    }

    private enum Step {
        /// A key as it stands in the document (a range, so a step holds no reference).
        case key(Range<Int>)
        /// A key that held escapes, decoded.
        case escapedKey([UInt8])
        case index(Int)
    }

    /// What a value is, from its first byte.
    package enum Kind: Sendable {
        case object, array, string, number, bool, null
    }

    private init(_ bytes: [UInt8], rules: Rules) {
        self.bytes = bytes
        self.rules = rules
        if rules.lenient, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// Reads `bytes` as one document with `body`, which reads its one value; only whitespace
    /// may follow it.
    package static func read<Value>(
        _ bytes: [UInt8], rules: Rules = .nodeAnswer, _ body: (inout JSONReader) throws(JSONReadError) -> Value
    ) throws(JSONReadError) -> Value {
        var reader = JSONReader(bytes, rules: rules)
        reader.skipWhitespace()
        guard reader.byte != nil else {
            throw JSONReadError(offset: reader.index, reason: "there is no JSON value, only blank space")
        }
        let value = try body(&reader)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.malformed("more text after the JSON value") }
        return value
    }

    // MARK: Containers

    /// Calls `member` for each key of an object, with the reader at the key's value, which
    /// `member` must read or skip. Readers refuse a key they know named twice (`twice`): no
    /// node writes one, and decoders disagree on which of the two counts (`JSONDecoder` takes
    /// the first).
    package mutating func readObject(_ member: (inout JSONReader, JSONKey) throws(JSONReadError) -> Void)
        throws(JSONReadError)
    {
        try expect(kind: .object)
        try enterContainer(depth: path.count)
        if byte == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            let offset = index
            let (key, escaped) = try readKeyAndColon()
            path.append(escaped ? .escapedKey(Array(key)) : .key(key.indices))
            try member(&self, JSONKey(bytes: key, offset: offset))
            path.removeLast()
            if try nextMember(closing: UInt8(ascii: "}")) { return }
        }
    }

    /// Calls `element` for each value of an array, with the reader at it.
    package mutating func readArray(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try expect(kind: .array)
        try enterContainer(depth: path.count)
        if byte == UInt8(ascii: "]") {
            index += 1
            return
        }
        var position = 0
        while true {
            skipWhitespace()
            path.append(.index(position))
            try element(&self)
            path.removeLast()
            position += 1
            if try nextMember(closing: UInt8(ascii: "]")) { return }
        }
    }

    /// Steps into the container at the reader, `depth` levels down, to its first member.
    private mutating func enterContainer(depth: Int) throws(JSONReadError) {
        guard depth < rules.maximumDepth else {
            throw JSONReadError(
                offset: index, reason: "nested more than \(rules.maximumDepth) deep", nestsTooDeep: true)
        }
        index += 1
        skipWhitespace()
    }

    /// After a member: true when its container closes here (past `closing`), false when a comma
    /// leads to another member.
    private mutating func nextMember(closing: UInt8) throws(JSONReadError) -> Bool {
        skipWhitespace()
        switch byte {
        case UInt8(ascii: ","):
            index += 1
            guard rules.lenient else { return false }
            skipWhitespace()
            guard byte == closing else { return false }
            index += 1
            return true
        case closing:
            index += 1
            return true
        default:
            throw malformed("expected ',' or '\(Character(Unicode.Scalar(closing)))' (a missing comma?)")
        }
    }

    // MARK: Values

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

    package mutating func readBool() throws(JSONReadError) -> Bool {
        try expect(kind: .bool)
        if byte == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

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

    private mutating func skipScalar() throws(JSONReadError) {
        switch kind {
        // Checked as JSON, not as UTF-8: `JSONDecoder` too reads only the strings it is asked for.
        case .string?: _ = try scanString()
        case .number?: try skipNumber()
        case .bool?: _ = try readBool()
        case .null?: _ = try readNull()
        case .object?, .array?, nil: throw malformed(Self.expectedValue)
        }
    }

    /// Passes over the object or array at the reader by the rules `readObject` and `readArray`
    /// read it (its keys UTF-8, its depth bounded), without a closure call and a path step for
    /// each value: what the envelope's first pass over a page of transactions is made of.
    private mutating func skipContainer() throws(JSONReadError) {
        // One bit a level, set for an object; the levels open below `path`'s.
        var objects: UInt64 = 0
        var depth = 0
        var expectingValue = true
        while true {
            if expectingValue {
                switch kind {
                case .object?, .array?:
                    let isObject = byte == UInt8(ascii: "{")
                    try enterContainer(depth: path.count + depth)
                    if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        expectingValue = false
                        if depth == 0 { return }
                        continue
                    }
                    objects = isObject ? objects | 1 << UInt64(depth) : objects & ~(1 << UInt64(depth))
                    depth += 1
                    if isObject { _ = try readKeyAndColon() }
                    skipWhitespace()
                    continue
                default:
                    try skipScalar()
                    expectingValue = false
                    if depth == 0 { return }
                }
            }
            let inObject = objects & 1 << UInt64(depth - 1) != 0
            if try nextMember(closing: inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                depth -= 1
                if depth == 0 { return }
            } else {
                skipWhitespace()
                if inObject { _ = try readKeyAndColon() }
                skipWhitespace()
                expectingValue = true
            }
        }
    }

    /// A key and its colon, the reader left before the value.
    private mutating func readKeyAndColon() throws(JSONReadError) -> (key: ArraySlice<UInt8>, escaped: Bool) {
        guard byte == UInt8(ascii: "\"") else { throw malformed("expected a key in double quotes") }
        let key = try readKey()
        skipWhitespace()
        guard byte == UInt8(ascii: ":") else { throw malformed("expected ':' after the key") }
        index += 1
        skipWhitespace()
        return key
    }

    // MARK: Errors

    /// An error about the value at the reader, its path in front: "transactions[2].id: …".
    package func failure(_ message: String) -> JSONReadError { JSONReadError(message) }

    /// The value at the reader by its path, as messages name it: `transactions[2].signature`.
    package var here: String {
        var text = ""
        for step in path {
            switch step {
            case .key(let range): text += (text.isEmpty ? "" : ".") + describe(bytes[range])
            case .escapedKey(let key): text += (text.isEmpty ? "" : ".") + describe(key[...])
            case .index(let position): text += "[\(position)]"
            }
        }
        return text.isEmpty ? "the answer" : text
    }

    /// The key being read was named before in its object.
    package var twice: JSONReadError { failure("\(here) is given twice") }

    /// `key` of the object at the reader is missing.
    package func missing(_ key: StaticString) -> JSONReadError {
        let name = key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        return failure(path.isEmpty ? "\(name) is missing" : "\(here).\(name) is missing")
    }

    private func describe(_ key: ArraySlice<UInt8>) -> String {
        String(decoding: key, as: UTF8.self).escapingControlCharacters
    }

    /// The grammar broken at `offset` (the reader's by default): `reason` says what was expected.
    private func malformed(_ reason: String, at offset: Int? = nil) -> JSONReadError {
        let offset = offset ?? index
        return JSONReadError(
            offset: offset, reason: offset < bytes.count ? reason : "the text ends inside the JSON: \(reason)")
    }

    private static let expectedValue =
        "expected a value (a string in double quotes, a number, a list, an object, true, false or null)"

    private func expect(kind expected: Kind) throws(JSONReadError) {
        guard let actual = kind else { throw malformed(Self.expectedValue) }
        guard actual == expected else {
            if actual == .null { throw failure("\(here) is null") }
            throw failure("\(here) is not \(expected.phrase)")
        }
    }

    // MARK: Bytes

    private var byte: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let matches = word.withUTF8Buffer { expected in
            index + expected.count <= bytes.count && bytes[index..<index + expected.count].elementsEqual(expected)
        }
        guard matches else { throw malformed(Self.expectedValue) }
        index += word.utf8CodeUnitCount
    }

    /// A key's bytes, valid UTF-8, as every key must be (`JSONDecoder` makes each a String, even
    /// one it ignores).
    private mutating func readKey() throws(JSONReadError) -> (key: ArraySlice<UInt8>, escaped: Bool) {
        let start = index
        let (content, escaped) = try scanString()
        let key = escaped ? try unescaped(content) : bytes[content]
        guard key.allSatisfy({ $0 < 0x80 }) || String(validating: key, as: UTF8.self) != nil else {
            throw malformed("a key that is not UTF-8", at: start)
        }
        return (key, escaped)
    }

    /// The string at the reader (its opening quote), as UTF-8 not yet validated: a slice of the
    /// document, or its bytes unescaped when it holds escapes (nodes write none).
    private mutating func stringContent() throws(JSONReadError) -> ArraySlice<UInt8> {
        let (content, escaped) = try scanString()
        return escaped ? try unescaped(content) : bytes[content]
    }

    /// The bytes of string content `content` (checked by `scanString`) with its escapes decoded.
    private mutating func unescaped(_ content: Range<Int>) throws(JSONReadError) -> ArraySlice<UInt8> {
        var out: [UInt8] = []
        var position = content.lowerBound
        while position < content.upperBound {
            let byte = bytes[position]
            position += 1
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            let end = index
            index = position
            try unescape(into: &out)
            position = index
            index = end
        }
        return out[...]
    }

    /// Passes over the string at the reader (its opening quote), checking its escapes and that
    /// no control character stands unescaped: the range between the quotes, and whether it
    /// holds escapes.
    private mutating func scanString() throws(JSONReadError) -> (content: Range<Int>, escaped: Bool) {
        index += 1
        let start = index
        var escaped = false
        var scratch: [UInt8] = []
        while true {
            index = Self.firstSpecialByte(in: bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return (start..<index - 1, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                try unescape(into: &scratch)
                scratch.removeAll(keepingCapacity: true)
            case 0..<0x20:
                throw malformed("a control character in a string (a line break must be written \\n)", at: index - 1)
            default: continue
            }
        }
        throw malformed("a string with no closing quote")
    }

    /// The index of the first quote, backslash or control character at or after `start`, or
    /// `bytes.count`: a string's content is mostly hex, passed over eight bytes at a time.
    private static func firstSpecialByte(in bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBytes { raw in
            var position = start
            #if _endian(little)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                // The lowest flagged byte of each mask is exact (a borrow only flags bytes above a
                // flagged one), and the lowest byte comes first in memory.
                while position <= raw.count &- 8 {
                    let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                    let quote = word ^ (ones &* 0x22)
                    let backslash = word ^ (ones &* 0x5C)
                    let flagged =
                        ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word)
                        & highs
                    if flagged != 0 { return position + flagged.trailingZeroBitCount / 8 }
                    position += 8
                }
            #endif
            while position < raw.count {
                let byte = raw[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return position }
                position += 1
            }
            return raw.count
        }
    }

    private mutating func unescape(into out: inout [UInt8]) throws(JSONReadError) {
        guard let escaped = byte else { throw malformed("a string with no closing quote") }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            let start = index - 2
            var scalar = UInt32(try hexQuad())
            // A high surrogate must be followed by its low one; a lone one, or a lone low one,
            // is refused or read as U+FFFD, and an escape after it read on its own.
            if (0xD800..<0xDC00).contains(scalar), byte == UInt8(ascii: "\\"), index + 1 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "u")
            {
                let resume = index
                index += 2
                let low = UInt32(try hexQuad())
                if (0xDC00..<0xE000).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    index = resume
                }
            }
            if let unicode = Unicode.Scalar(scalar) {
                out.append(contentsOf: String(Character(unicode)).utf8)
            } else if rules.replacesLoneSurrogates {
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            } else {
                throw malformed("a lone UTF-16 surrogate escape", at: start)
            }
        default:
            throw malformed("an unknown escape in a string (write \\\\ for a backslash)", at: index - 1)
        }
    }

    private mutating func hexQuad() throws(JSONReadError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte, let digit = Self.hexDigit(byte) else { throw malformed("\\u takes four hex digits") }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func skipNumber() throws(JSONReadError) {
        if byte == UInt8(ascii: "-") { index += 1 }
        guard let first = byte, Self.isDigit(first) else { throw malformed("a malformed number") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if byte == UInt8(ascii: ".") {
            index += 1
            guard let digit = byte, Self.isDigit(digit) else { throw malformed("a malformed number") }
            skipDigits()
        }
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            index += 1
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { index += 1 }
            guard let digit = byte, Self.isDigit(digit) else { throw malformed("a malformed number") }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while let byte, Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

/// An object's key as the document spells it (escapes decoded), matched against the names a
/// reader expects: `switch key { case "height": … }`.
package struct JSONKey {
    let bytes: ArraySlice<UInt8>
    /// Where the key's opening quote stands in the document.
    package let offset: Int

    /// The key as text (keys are checked UTF-8 when read).
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package static func ~= (name: StaticString, key: JSONKey) -> Bool {
        name.withUTF8Buffer { expected in
            guard key.bytes.count == expected.count else { return false }
            // Byte by byte on the buffers: `elementsEqual` on a slice took ~400 instructions a key.
            return key.bytes.withUnsafeBufferPointer { actual in
                for index in 0..<expected.count where actual[index] != expected[index] { return false }
                return true
            }
        }
    }
}

/// What is wrong with a document, in a user's words: which field, and what about it; or, when
/// the text breaks the grammar, the byte offset where it does and what was expected there.
package struct JSONReadError: Error, Sendable, CustomStringConvertible {
    package let reason: String
    /// The byte where the grammar breaks; nil for a value that is JSON but not what was asked.
    package let offset: Int?
    /// Refused for its nesting alone: the rest may well be JSON.
    package let nestsTooDeep: Bool

    package init(_ description: String) {
        reason = description
        offset = nil
        nestsTooDeep = false
    }

    package init(offset: Int, reason: String, nestsTooDeep: Bool = false) {
        self.reason = reason
        self.offset = offset
        self.nestsTooDeep = nestsTooDeep
    }

    package var description: String { offset.map { "malformed JSON at byte \($0): \(reason)" } ?? reason }

    /// Line and column (from 1; the column counts characters, not bytes) of `offset` in `bytes`.
    package func lineAndColumn(in bytes: [UInt8]) -> (line: Int, column: Int)? {
        guard let offset else { return nil }
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a UTF-8 continuation byte
                column += 1
            }
        }
        return (line, column)
    }
}

extension JSONReader.Kind {
    fileprivate var phrase: String {
        switch self {
        case .object: "an object"
        case .array: "a list"
        case .string: "a string"
        case .number: "an integer"
        case .bool: "true or false"
        case .null: "null"
        }
    }
}
