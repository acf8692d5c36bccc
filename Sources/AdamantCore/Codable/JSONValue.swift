/// A JSON value from a hostile rich-message plaintext. Numbers keep the literal as written, so
/// an amount such as `0.002` is shown as the sender wrote it, never through floating point.
package enum JSONValue: Sendable, Hashable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// The largest plaintext read: the node allows 10,224 bytes, so nothing real is refused.
    package static let maximumBytes = 65_536
    /// The deepest nesting read. Real messages nest three levels (a file reply's preview); the
    /// parser refuses level 33 before descending into it, so hostile input never recurses deeper.
    package static let maximumDepth = 32

    /// Reads `text` as one JSON value, or nil when it is not JSON, is too large or nests too deep.
    /// A key that occurs twice keeps its last value, as `JSON.parse` does in the web clients.
    package init?(parsing text: String) {
        guard text.utf8.count <= Self.maximumBytes else { return nil }
        var parser = JSONParser(bytes: Array(text.utf8))
        guard let value = try? parser.document() else { return nil }
        self = value
    }

    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    package var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}

/// Why the parser stopped; the reason is never shown, only that the text is not usable JSON.
package struct JSONRefusal: Error {
    /// Nested past `JSONValue.maximumDepth`, where the rest may well be JSON.
    package let isTooDeep: Bool
    init(tooDeep: Bool = false) { isTooDeep = tooDeep }
}

/// A recursive-descent parser over UTF-8 bytes (already valid UTF-8, being a Swift string),
/// bounded by `JSONValue.maximumDepth`. Every read checks the index first: no trap on any input.
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let rules: Rules

    /// Whose reading of JSON to follow where readers differ.
    package enum Rules: Sendable {
        /// The web clients' `JSON.parse`: of a key named twice the last counts, and a lone
        /// UTF-16 surrogate escape becomes U+FFFD.
        case javaScript
        /// Foundation's `JSONDecoder`: the first of a key named twice counts, and a lone
        /// surrogate is refused. Lenient, also a leading byte order mark and a comma before
        /// `]` or `}`, as `JSONDecoder` takes them.
        case foundation(lenient: Bool)
    }

    package init(bytes: [UInt8], rules: Rules = .javaScript) {
        self.bytes = bytes
        self.rules = rules
        if isLenient, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    private var isLenient: Bool { if case .foundation(lenient: true) = rules { true } else { false } }
    private var followsFoundation: Bool { if case .foundation = rules { true } else { false } }

    package mutating func document() throws(JSONRefusal) -> JSONValue {
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw JSONRefusal() }
        return value
    }

    private var current: UInt8? { byte(at: index) }

    private func byte(at position: Int) -> UInt8? { bytes.indices.contains(position) ? bytes[position] : nil }

    private var nextAfterWhitespace: UInt8? {
        var position = index
        while let byte = byte(at: position), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
        return byte(at: position)
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(JSONRefusal) {
        guard current == byte else { throw JSONRefusal() }
        index += 1
    }

    private mutating func value(depth: Int) throws(JSONRefusal) -> JSONValue {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"):
            guard depth < JSONValue.maximumDepth else { throw JSONRefusal(tooDeep: true) }
            return try object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < JSONValue.maximumDepth else { throw JSONRefusal(tooDeep: true) }
            return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws(JSONRefusal) -> JSONValue {
        try expect(UInt8(ascii: "{"))
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            let value = try value(depth: depth)
            if !followsFoundation || members[key] == nil { members[key] = value }
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                if isLenient, nextAfterWhitespace == UInt8(ascii: "}") { skipWhitespace(); index += 1; return .object(members) }
                continue
            }
            try expect(UInt8(ascii: "}"))
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(JSONRefusal) -> JSONValue {
        try expect(UInt8(ascii: "["))
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                if isLenient, nextAfterWhitespace == UInt8(ascii: "]") { skipWhitespace(); index += 1; return .array(elements) }
                continue
            }
            try expect(UInt8(ascii: "]"))
            return .array(elements)
        }
    }

    private mutating func literal(_ word: String) throws(JSONRefusal) {
        for byte in word.utf8 { try expect(byte) }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as written.
    private mutating func number() throws(JSONRefusal) -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard try digits() > 0 else { throw JSONRefusal() }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard try digits() > 0 else { throw JSONRefusal() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try digits() > 0 else { throw JSONRefusal() }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func digits() throws(JSONRefusal) -> Int {
        let start = index
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
        return index - start
    }

    private mutating func string() throws(JSONRefusal) -> String {
        try expect(UInt8(ascii: "\""))
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw JSONRefusal() }
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"): utf8.append(contentsOf: String(try escapedScalar()).utf8)
            case 0x00..<0x20: throw JSONRefusal()
            default: utf8.append(byte)
            }
        }
    }

    /// The scalar after a backslash. A strict UTF-8 string cannot hold a lone or mismatched
    /// UTF-16 surrogate: it becomes U+FFFD, or is refused under Foundation's rules.
    private mutating func escapedScalar() throws(JSONRefusal) -> Unicode.Scalar {
        guard let escape = current else { throw JSONRefusal() }
        index += 1
        switch escape {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            if (0xD800..<0xDC00).contains(unit), byte(at: index) == UInt8(ascii: "\\"), byte(at: index + 1) == UInt8(ascii: "u") {
                let resume = index
                index += 2
                let low = try hexUnit()
                if (0xDC00..<0xE000).contains(low) {
                    let combined = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    if let scalar = Unicode.Scalar(combined) { return scalar }
                }
                index = resume  // not a pair: the next escape is read on its own
            }
            if let scalar = Unicode.Scalar(UInt32(unit)) { return scalar }
            guard !followsFoundation else { throw JSONRefusal() }
            return "\u{FFFD}"
        default: throw JSONRefusal()
        }
    }

    private mutating func hexUnit() throws(JSONRefusal) -> UInt16 {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexDigit(byte) else { throw JSONRefusal() }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
