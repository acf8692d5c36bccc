/// `Decodable` and `Encodable` over JSON, without Foundation: the commands' libraries read a
/// handful of small documents (a node's status, the config file, caches, push payloads) and
/// write one-line reports, and Foundation's coders were the one reason every command loaded it.
///
/// Decoding follows `JSONDecoder`'s rules where a caller could tell: the same `DecodingError`
/// cases with the coding path, `null` as a missing value, integers only from numbers that hold
/// one exactly, the first of a key named twice, no lone surrogate escapes. Encoding writes compact JSON with keys in byte order and `/` unescaped, as
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` does for ASCII keys.
package enum JSONCoding {
    /// Decodes `type` from a whole JSON document. Bytes that are not UTF-8 or not JSON are
    /// `DecodingError.dataCorrupted` with an empty coding path (with the reader's
    /// `JSONReadError` as the underlying error when it refused the JSON). `lenient` takes a byte
    /// order mark and trailing commas too, as `JSONDecoder` does: for files people edit.
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>, lenient: Bool = false)
        throws -> T
    {
        let bytes = Array(bytes)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "The given data was not valid UTF-8."))
        }
        let rules = JSONReader.Rules(maximumDepth: JSONValue.maximumDepth, lenient: lenient)
        let document: JSONValue
        do {
            document = try JSONValue(document: bytes, rules: rules, keyNamedTwice: .firstCounts)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
        return try decode(type, from: document)
    }

    /// Decodes `type` from a value already read.
    package static func decode<T: Decodable>(_ type: T.Type, from document: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: document, codingPath: []))
    }

    /// The compact JSON of `value`, keys sorted by their UTF-8 bytes.
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = EncodedNode()
        try value.encode(to: ValueEncoder(node: root, codingPath: []))
        return root.value.bytes
    }
}

/// A coding key for an array position or a dictionary's string key.
struct PositionKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
