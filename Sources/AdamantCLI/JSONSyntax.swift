import AdamantCore

/// Where a file stops being JSON (RFC 8259), so an error can name the line: the toolchain's
/// decoder says only that the data is not valid JSON. A check of the grammar, nothing decoded;
/// as lenient as the decoder about a trailing comma and a byte order mark, stricter about a
/// key given twice in one object, which the decoder would take the first of (keys are
/// compared as written, escapes and all).
enum JSONSyntax {
    struct Problem: Sendable, Hashable {
        /// From 1; the column counts characters, not bytes.
        let line: Int
        let column: Int
        let reason: String
    }

    /// Deeper than the decoder goes: nesting past it is reported, never recursed into.
    static let maximumDepth = 512

    /// The first syntax error in `bytes`, or nil when they are one valid JSON value.
    static func firstProblem(in bytes: [UInt8]) -> Problem? {
        var scanner = Scanner(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.offset = 3 }
        do throws(Failure) {
            scanner.skipSpace()
            if scanner.atEnd { throw Failure(offset: 0, reason: "the file is empty; it should hold one JSON object") }
            try scanner.value(depth: 0)
            scanner.skipSpace()
            if !scanner.atEnd { throw Failure(offset: scanner.offset, reason: "more text after the JSON object") }
            return nil
        } catch {
            return locate(error, in: bytes)
        }
    }

    private static func locate(_ failure: Failure, in bytes: [UInt8]) -> Problem {
        var line = 1, column = 1
        for byte in bytes.prefix(failure.offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a UTF-8 continuation byte
                column += 1
            }
        }
        return Problem(line: line, column: column, reason: failure.reason)
    }

    private struct Failure: Error {
        let offset: Int
        let reason: String
    }

    private struct Scanner {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset >= bytes.count }
        var current: UInt8? { atEnd ? nil : bytes[offset] }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
        }

        func fail(_ reason: String) -> Failure {
            Failure(offset: offset, reason: atEnd ? "the file ends inside the JSON (\(reason))" : reason)
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < JSONSyntax.maximumDepth else { throw fail("nested more than \(JSONSyntax.maximumDepth) deep") }
            switch current ?? 0 {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: throw fail("expected a value (a string in double quotes, a number, a list, an object, true, false or null)")
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            offset += 1
            skipSpace()
            if current == UInt8(ascii: "}") { offset += 1; return }
            var keys = Set<ArraySlice<UInt8>>()
            while true {
                guard current == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes") }
                let start = offset
                try string()
                let key = bytes[(start + 1)..<(offset - 1)]
                guard keys.insert(key).inserted else {
                    throw Failure(offset: start, reason: "the key \(String(decoding: key, as: UTF8.self).quoted) is given twice; keep one")
                }
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                offset += 1
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: "}") { offset += 1; return }
                guard current == UInt8(ascii: ",") else { throw fail("expected ',' or '}' (a missing comma?)") }
                offset += 1
                skipSpace()
                if current == UInt8(ascii: "}") { offset += 1; return }
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            offset += 1
            skipSpace()
            if current == UInt8(ascii: "]") { offset += 1; return }
            while true {
                try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: "]") { offset += 1; return }
                guard current == UInt8(ascii: ",") else { throw fail("expected ',' or ']' (a missing comma?)") }
                offset += 1
                skipSpace()
                if current == UInt8(ascii: "]") { offset += 1; return }
            }
        }

        mutating func string() throws(Failure) {
            offset += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard let escaped = current else { break }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            offset += 1
                            guard let digit = current, digit.isHexDigit else { throw fail("\\u takes four hex digits") }
                        }
                    } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                        throw fail("an unknown escape in a string (write \\\\ for a backslash)")
                    }
                    offset += 1
                case 0..<0x20:
                    throw fail("a control character in a string (a line break must be written \\n)")
                default:
                    offset += 1
                }
            }
            throw fail("a string with no closing quote")
        }

        mutating func number() throws(Failure) {
            if current == UInt8(ascii: "-") { offset += 1 }
            guard let first = current, first.isDigit else { throw fail("a malformed number") }
            offset += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if current == UInt8(ascii: ".") {
                offset += 1
                guard current?.isDigit == true else { throw fail("a malformed number") }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                offset += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard current?.isDigit == true else { throw fail("a malformed number") }
                skipDigits()
            }
        }

        mutating func skipDigits() {
            while current?.isDigit == true { offset += 1 }
        }

        /// `true`, `false`, `null`; anything else is reported where the word starts.
        mutating func literal(_ word: String) throws(Failure) {
            let start = offset
            for expected in word.utf8 {
                guard current == expected else {
                    throw Failure(offset: start, reason: "expected a value (a string goes in double quotes)")
                }
                offset += 1
            }
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
