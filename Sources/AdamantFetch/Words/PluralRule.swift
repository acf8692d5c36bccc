/// A catalog's plural rule: the C expression of its header's `Plural-Forms` (`plural=(n != 1);`),
/// which gives the form of a text for a count. Parsed as gettext parses it: `?:`, `||`, `&&`,
/// comparisons, `+ - * / %`, `!`, parentheses, `n` and whole numbers. Unsigned and wrapping,
/// a division by zero is 0, and nesting is bounded, so no expression traps.
package indirect enum PluralRule: Sendable, Equatable {
    case count
    case number(UInt64)
    case not(PluralRule)
    case binary(Operation, PluralRule, PluralRule)
    case choice(PluralRule, PluralRule, PluralRule)

    /// English's, and any catalog's that says none: the first form for 1, the second otherwise.
    static let english = PluralRule.binary(.notEqual, .count, .number(1))

    /// A binary operator, by its C spelling.
    package enum Operation: String, Sendable, CaseIterable {
        case or = "||"
        case and = "&&"
        case equal = "=="
        case notEqual = "!="
        case atMost = "<="
        case atLeast = ">="
        case less = "<"
        case greater = ">"
        case plus = "+"
        case minus = "-"
        case times = "*"
        case divided = "/"
        case remainder = "%"

        /// From the loosest level to the tightest; a two-character spelling before the
        /// one-character one it starts with.
        static let levels: [[Operation]] = [
            [.or], [.and], [.equal, .notEqual], [.atMost, .atLeast, .less, .greater], [.plus, .minus],
            [.times, .divided, .remainder],
        ]
    }

    /// The rule of a catalog's header (its `Plural-Forms:` line); nil when there is none, or
    /// it is not an expression.
    package init?(header: String) {
        // By bytes: a catalog is read by a cold process, which string searching would slow.
        let marker = Array("plural=".utf8)
        guard
            let line = header.utf8.split(separator: UInt8(ascii: "\n")).first(where: {
                $0.starts(with: "Plural-Forms:".utf8)
            }),
            let start = line.indices.first(where: { line[$0...].starts(with: marker) })
        else { return nil }
        let expression = line[line.index(start, offsetBy: marker.count)...].prefix { $0 != UInt8(ascii: ";") }
        guard let rule = PluralRule(expression: String(decoding: expression, as: UTF8.self)) else { return nil }
        self = rule
    }

    /// The rule `expression` states; nil when it is not one (or nests deeper than 64).
    package init?(expression: String) {
        guard expression.utf8.count <= 1_000 else { return nil }
        var parser = Parser(Array(expression.utf8))
        guard let rule = parser.conditional(depth: 0), parser.atEnd else { return nil }
        self = rule
    }

    /// The form for `n`: the index of its text among the catalog's forms.
    package func form(for n: UInt64) -> Int { Int(clamping: value(n)) }

    private func value(_ n: UInt64) -> UInt64 {
        switch self {
        case .count: return n
        case .number(let value): return value
        case .not(let operand): return operand.value(n) == 0 ? 1 : 0
        case .choice(let condition, let then, let otherwise):
            return condition.value(n) != 0 ? then.value(n) : otherwise.value(n)
        case .binary(let operation, let left, let right):
            let (a, b) = (left.value(n), right.value(n))
            switch operation {
            case .or: return a != 0 || b != 0 ? 1 : 0
            case .and: return a != 0 && b != 0 ? 1 : 0
            case .equal: return a == b ? 1 : 0
            case .notEqual: return a != b ? 1 : 0
            case .less: return a < b ? 1 : 0
            case .greater: return a > b ? 1 : 0
            case .atMost: return a <= b ? 1 : 0
            case .atLeast: return a >= b ? 1 : 0
            case .plus: return a &+ b
            case .minus: return a &- b
            case .times: return a &* b
            case .divided: return b == 0 ? 0 : a / b
            case .remainder: return b == 0 ? 0 : a % b
            }
        }
    }

    /// Recursive descent over the expression's bytes, lowest precedence first.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = 64

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool {
            mutating get {
                skipSpaces()
                return index == bytes.count
            }
        }

        mutating func conditional(depth: Int) -> PluralRule? {
            guard depth < Self.maximumDepth, let condition = binary(level: 0, depth: depth) else { return nil }
            guard take("?".utf8) else { return condition }
            guard let then = conditional(depth: depth + 1), take(":".utf8),
                let otherwise = conditional(depth: depth + 1)
            else { return nil }
            return .choice(condition, then, otherwise)
        }

        private mutating func binary(level: Int, depth: Int) -> PluralRule? {
            guard level < Operation.levels.count else { return unary(depth: depth) }
            guard var left = binary(level: level + 1, depth: depth) else { return nil }
            while let operation = Operation.levels[level].first(where: { take($0.rawValue.utf8) }) {
                guard let right = binary(level: level + 1, depth: depth) else { return nil }
                left = .binary(operation, left, right)
            }
            return left
        }

        private mutating func unary(depth: Int) -> PluralRule? {
            guard depth < Self.maximumDepth else { return nil }
            if take("!".utf8) { return unary(depth: depth + 1).map(PluralRule.not) }
            if take("(".utf8) {
                guard let inner = conditional(depth: depth + 1), take(")".utf8) else { return nil }
                return inner
            }
            if take("n".utf8) { return .count }
            skipSpaces()
            var value: UInt64 = 0
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
                guard !overflowed else { return nil }
                value = times &+ UInt64(bytes[index] - UInt8(ascii: "0"))
                guard value >= times else { return nil }
                index += 1
            }
            return index > start ? .number(value) : nil
        }

        /// Takes `token` if it comes next; a one-character comparison never takes the first
        /// character of a two-character one (`<` of `<=`), nor `!` of `!=`.
        private mutating func take(_ token: String.UTF8View) -> Bool {
            skipSpaces()
            guard bytes[index...].starts(with: token) else { return false }
            let length = token.count
            if length == 1, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "="),
                let first = token.first,
                first == UInt8(ascii: "<") || first == UInt8(ascii: ">") || first == UInt8(ascii: "!")
                    || first == UInt8(ascii: "=")
            {
                return false
            }
            index += length
            return true
        }

        private mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
        }
    }
}
