/// What is wrong with a document, in a user's words: which field, and what about it; or, when
/// the text breaks the grammar, the byte offset where it does and what was expected there.
package struct JSONReadError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in a user's words.
    package let reason: String
    /// The byte where the grammar breaks; nil for a value that is JSON but not what was asked.
    package let offset: Int?
    /// Refused for its nesting alone: the rest may well be JSON.
    package let nestsTooDeep: Bool

    /// A value that is JSON but not what was asked: `description` says which and what about it.
    package init(_ description: String) {
        reason = description
        offset = nil
        nestsTooDeep = false
    }

    /// The grammar broken at `offset`: `reason` says what was expected there.
    package init(offset: Int, reason: String, nestsTooDeep: Bool = false) {
        self.reason = reason
        self.offset = offset
        self.nestsTooDeep = nestsTooDeep
    }

    /// The reason, after the byte offset when there is one.
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
