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
///
/// The reader is this file (its state and the containers), `JSONReader+Values.swift` (the values
/// a caller reads), `JSONReader+Bytes.swift` (strings, numbers and literals, byte by byte) and
/// `JSONReader+Errors.swift` (what a refusal says). The state and the helpers those files share
/// are internal, not private, for that alone: nothing else in the module touches them.
package struct JSONReader {
    /// The document.
    let bytes: [UInt8]
    /// The byte the reader stands at.
    var index = 0
    /// The keys and indices from the document's value down to the one being read, for messages.
    var path: [Step] = []
    /// Whose reading of JSON to follow.
    let rules: Rules

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

        /// Rules as given; the defaults are `nodeAnswer`'s.
        package init(maximumDepth: Int = 64, lenient: Bool = false, replacesLoneSurrogates: Bool = false) {
            self.maximumDepth = maximumDepth
            self.lenient = lenient
            self.replacesLoneSurrogates = replacesLoneSurrogates
        }
    }

    enum Step {
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

    /// Passes over the object or array at the reader by the rules `readObject` and `readArray`
    /// read it (its keys UTF-8, its depth bounded), without a closure call and a path step for
    /// each value: what the envelope's first pass over a page of transactions is made of.
    mutating func skipContainer() throws(JSONReadError) {
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
}
