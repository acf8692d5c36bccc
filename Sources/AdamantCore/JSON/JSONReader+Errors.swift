/// What the reader says when it refuses: a value that is not what was asked, named by its path,
/// or the grammar broken at a byte offset.
extension JSONReader {
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
    func malformed(_ reason: String, at offset: Int? = nil) -> JSONReadError {
        let offset = offset ?? index
        return JSONReadError(
            offset: offset, reason: offset < bytes.count ? reason : "the text ends inside the JSON: \(reason)")
    }

    static let expectedValue =
        "expected a value (a string in double quotes, a number, a list, an object, true, false or null)"

    func expect(kind expected: Kind) throws(JSONReadError) {
        guard let actual = kind else { throw malformed(Self.expectedValue) }
        guard actual == expected else {
            if actual == .null { throw failure("\(here) is null") }
            throw failure("\(here) is not \(expected.phrase)")
        }
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
