/// The grammar byte by byte: whitespace, literals, strings with their escapes, and numbers.
/// Every read checks the index first; a string's content is scanned eight bytes at a time.
extension JSONReader {
    var byte: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let matches = word.withUTF8Buffer { expected in
            index + expected.count <= bytes.count && bytes[index..<index + expected.count].elementsEqual(expected)
        }
        guard matches else { throw malformed(Self.expectedValue) }
        index += word.utf8CodeUnitCount
    }

    /// A key's bytes, valid UTF-8, as every key must be (`JSONDecoder` makes each a String, even
    /// one it ignores).
    mutating func readKey() throws(JSONReadError) -> (key: ArraySlice<UInt8>, escaped: Bool) {
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
    mutating func stringContent() throws(JSONReadError) -> ArraySlice<UInt8> {
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
    mutating func scanString() throws(JSONReadError) -> (content: Range<Int>, escaped: Bool) {
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
    mutating func skipNumber() throws(JSONReadError) {
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

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
