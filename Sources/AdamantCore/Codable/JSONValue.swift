/// A JSON value. Numbers keep the literal as written, so an amount such as `0.002` is shown as
/// the sender wrote it, never through floating point; objects keep their members in order, so
/// what is written reads like what was read or built (the devnet's replies, a node's order).
package enum JSONValue: Sendable, Equatable {
    /// Members in order, each key once when read (`keyNamedTwice` says which one counts).
    case object([(key: String, value: JSONValue)])
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
    /// A key that occurs twice keeps its last value, and a lone surrogate escape is U+FFFD, as
    /// `JSON.parse` does in the web clients.
    package init?(parsing text: String) {
        guard text.utf8.count <= Self.maximumBytes else { return nil }
        let rules = JSONReader.Rules(maximumDepth: Self.maximumDepth, replacesLoneSurrogates: true)
        guard let value = try? JSONValue(document: Array(text.utf8), rules: rules, keyNamedTwice: .lastCounts) else {
            return nil
        }
        self = value
    }

    /// `bytes` as one whole document: its value, with only whitespace around it.
    package init(document bytes: [UInt8], rules: JSONReader.Rules = .nodeAnswer, keyNamedTwice: KeyNamedTwice)
        throws(JSONReadError)
    {
        self = try JSONReader.read(bytes, rules: rules) { reader throws(JSONReadError) in
            try JSONValue(json: &reader, keyNamedTwice: keyNamedTwice)
        }
    }

    /// What to make of a key an object names twice: readers disagree on which counts.
    package enum KeyNamedTwice: Sendable {
        /// Foundation's `JSONDecoder`.
        case firstCounts
        /// JavaScript's `JSON.parse` (the key keeps its first place).
        case lastCounts
        /// Neither: refused where the second one stands, for files people edit.
        case refused
    }

    /// The value at `reader`, numbers kept as written.
    package init(json reader: inout JSONReader, keyNamedTwice: KeyNamedTwice) throws(JSONReadError) {
        switch reader.kind {
        case .object?:
            var members: [(key: String, value: JSONValue)] = []
            // Where each key stands in `members`: a lookup per key, not a scan.
            var places: [String: Int] = [:]
            try reader.readObject { reader, key throws(JSONReadError) in
                let name = key.text
                let place = places[name]
                if place != nil, keyNamedTwice == .refused {
                    throw JSONReadError(offset: key.offset, reason: "the key \(name.quoted) is given twice; keep one")
                }
                let value = try JSONValue(json: &reader, keyNamedTwice: keyNamedTwice)
                if let place {
                    if keyNamedTwice == .lastCounts { members[place].value = value }
                } else {
                    places[name] = members.count
                    members.append((name, value))
                }
            }
            self = .object(members)
        case .array?:
            var elements: [JSONValue] = []
            try reader.readArray { reader throws(JSONReadError) in
                elements.append(try JSONValue(json: &reader, keyNamedTwice: keyNamedTwice))
            }
            self = .array(elements)
        case .string?: self = .string(try reader.readString())
        case .number?: self = .number(try reader.readNumberLiteral())
        case .bool?: self = .bool(try reader.readBool())
        case .null?, nil:
            try reader.skipValue()  // `null`, or the refusal of what is not a value
            self = .null
        }
    }

    /// The value of `key`, the first member of that name.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    package static func integer(_ value: Int64) -> JSONValue { .number(String(value)) }

    /// Equal when the same members stand in the same order.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let left), .object(let right)):
            left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let left), .array(let right)): left == right
        case (.string(let left), .string(let right)), (.number(let left), .number(let right)): left == right
        case (.bool(let left), .bool(let right)): left == right
        case (.null, .null): true
        default: false
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
}
