/// A `Decoder` over a parsed `JSONValue`; see `JSONCoding.decode`.
struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = try value.present([String: JSONValue].self, at: codingPath) else {
            throw value.mismatch([String: JSONValue].self, at: codingPath)
        }
        let byKey = Dictionary(members.lazy.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        return KeyedDecodingContainer(KeyedReader<Key>(members: byKey, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = try value.present([JSONValue].self, at: codingPath) else {
            throw value.mismatch([JSONValue].self, at: codingPath)
        }
        return UnkeyedReader(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueReader(value: value, codingPath: codingPath)
    }
}

// MARK: Scalars

extension JSONValue {
    /// The value itself, or `valueNotFound` when it is `null`.
    func present(_ type: Any.Type, at path: [any CodingKey]) throws -> JSONValue {
        guard self != .null else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: "Expected \(type) but found null instead."))
        }
        return self
    }

    func mismatch(_ type: Any.Type, at path: [any CodingKey]) -> DecodingError {
        .typeMismatch(
            type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(kindName) instead.")
        )
    }

    private var kindName: String {
        switch self {
        case .object: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a bool"
        case .null: "null"
        }
    }

    func bool(at path: [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = try present(Bool.self, at: path) else { throw mismatch(Bool.self, at: path) }
        return flag
    }

    func string(at path: [any CodingKey]) throws -> String {
        guard case .string(let text) = try present(String.self, at: path) else { throw mismatch(String.self, at: path) }
        return text
    }

    /// An integer from a number that holds one exactly: `12`, `-3`, also `1.0`, `1e3` or
    /// `123456789012345678.0`, which `JSONDecoder` reads too, digit for digit; never `1.5`, and
    /// a number out of `T`'s range is refused by name.
    func integer<T: FixedWidthInteger>(_: T.Type, at path: [any CodingKey]) throws -> T {
        guard case .number(let literal) = try present(T.self, at: path) else { throw mismatch(T.self, at: path) }
        if let exact = T(literal) ?? Self.exactInteger(T.self, literal) { return exact }
        throw DecodingError.dataCorrupted(
            .init(codingPath: path, debugDescription: "Number \(literal) is not representable in \(T.self)."))
    }

    /// The integer a literal with a fraction or an exponent holds, when every digit past its
    /// decimal point is zero and it fits; computed on the digits, never through a `Double`.
    private static func exactInteger<T: FixedWidthInteger>(_: T.Type, _ literal: String) -> T? {
        var bytes = Array(literal.utf8)[...]
        let isNegative = bytes.first == UInt8(ascii: "-")
        if isNegative { bytes = bytes.dropFirst() }
        let mantissa = bytes.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        var exponent = 0
        if mantissa.endIndex < bytes.endIndex {
            var digits = bytes[(mantissa.endIndex + 1)...]
            let isNegativeExponent = digits.first == UInt8(ascii: "-")
            if digits.first == UInt8(ascii: "-") || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
            // Past 9,999 places the number is 0 or out of every integer type's range.
            let magnitude = digits.count > 4 ? 10_000 : digits.reduce(0) { $0 * 10 + Int($1 &- 0x30) }
            exponent = isNegativeExponent ? -magnitude : magnitude
        }
        let digits = mantissa.filter { $0 != UInt8(ascii: ".") }
        let integerDigitCount = (mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.endIndex) - mantissa.startIndex
        let pointPosition = integerDigitCount + exponent  // digits before the decimal point
        guard !digits.allSatisfy({ $0 == UInt8(ascii: "0") }) else { return 0 }  // however far the point moves
        guard digits.dropFirst(max(0, pointPosition)).allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
        var value: T = 0
        for place in 0..<max(0, pointPosition) {
            let digit = place < digits.count ? T(digits[digits.startIndex + place] &- 0x30) : 0
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) =
                isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowed, !overflowedAgain else { return nil }
            value = next
        }
        return value
    }

    func real<T: BinaryFloatingPoint & LosslessStringConvertible>(_: T.Type, at path: [any CodingKey]) throws -> T {
        guard case .number(let literal) = try present(T.self, at: path) else { throw mismatch(T.self, at: path) }
        guard let real = T(literal), real.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path, debugDescription: "Number \(literal) is not representable in \(T.self)."))
        }
        return real
    }
}

// MARK: Containers

private struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue.quoted).")
            )
        }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try value(key).bool(at: path(key)) }
    func decode(_: String.Type, forKey key: Key) throws -> String { try value(key).string(at: path(key)) }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try value(key).real(Double.self, at: path(key)) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try value(key).real(Float.self, at: path(key)) }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try value(key).integer(Int.self, at: path(key)) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).integer(Int8.self, at: path(key)) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).integer(Int16.self, at: path(key)) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).integer(Int32.self, at: path(key)) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).integer(Int64.self, at: path(key)) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try value(key).integer(UInt.self, at: path(key)) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).integer(UInt8.self, at: path(key)) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).integer(UInt16.self, at: path(key)) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).integer(UInt32.self, at: path(key)) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).integer(UInt64.self, at: path(key)) }
    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
        try T(from: ValueDecoder(value: try value(key), codingPath: path(key)))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(value: try value(key), codingPath: path(key)).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(key), codingPath: path(key)).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
        let key = PositionKey(stringValue: "super")
        return ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: path(key))
    }
}

private struct UnkeyedReader: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element and its path; the index moves on only once the element is decoded.
    private func next(_ type: Any.Type) throws -> (value: JSONValue, path: [any CodingKey]) {
        let path = codingPath + [PositionKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return (elements[currentIndex], path)
    }

    private mutating func read<T>(_ type: T.Type, _ convert: (JSONValue, [any CodingKey]) throws -> T) throws -> T {
        let (value, path) = try next(type)
        let result = try convert(value, path)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never.self).value == .null else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode(_: Bool.Type) throws -> Bool { try read(Bool.self) { try $0.bool(at: $1) } }
    mutating func decode(_: String.Type) throws -> String { try read(String.self) { try $0.string(at: $1) } }
    mutating func decode(_: Double.Type) throws -> Double { try read(Double.self) { try $0.real(Double.self, at: $1) } }
    mutating func decode(_: Float.Type) throws -> Float { try read(Float.self) { try $0.real(Float.self, at: $1) } }
    mutating func decode(_: Int.Type) throws -> Int { try read(Int.self) { try $0.integer(Int.self, at: $1) } }
    mutating func decode(_: Int8.Type) throws -> Int8 { try read(Int8.self) { try $0.integer(Int8.self, at: $1) } }
    mutating func decode(_: Int16.Type) throws -> Int16 { try read(Int16.self) { try $0.integer(Int16.self, at: $1) } }
    mutating func decode(_: Int32.Type) throws -> Int32 { try read(Int32.self) { try $0.integer(Int32.self, at: $1) } }
    mutating func decode(_: Int64.Type) throws -> Int64 { try read(Int64.self) { try $0.integer(Int64.self, at: $1) } }
    mutating func decode(_: UInt.Type) throws -> UInt { try read(UInt.self) { try $0.integer(UInt.self, at: $1) } }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try read(UInt8.self) { try $0.integer(UInt8.self, at: $1) } }
    mutating func decode(_: UInt16.Type) throws -> UInt16 {
        try read(UInt16.self) { try $0.integer(UInt16.self, at: $1) }
    }
    mutating func decode(_: UInt32.Type) throws -> UInt32 {
        try read(UInt32.self) { try $0.integer(UInt32.self, at: $1) }
    }
    mutating func decode(_: UInt64.Type) throws -> UInt64 {
        try read(UInt64.self) { try $0.integer(UInt64.self, at: $1) }
    }
    mutating func decode<T: Decodable>(_: T.Type) throws -> T {
        try read(T.self) { value, path in try T(from: ValueDecoder(value: value, codingPath: path)) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try read(KeyedDecodingContainer<NestedKey>.self) { value, path in
            try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
        }
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { value, path in
            try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
        }
    }
    mutating func superDecoder() throws -> any Decoder {
        try read((any Decoder).self) { value, path in ValueDecoder(value: value, codingPath: path) }
    }
}

private struct SingleValueReader: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_: Bool.Type) throws -> Bool { try value.bool(at: codingPath) }
    func decode(_: String.Type) throws -> String { try value.string(at: codingPath) }
    func decode(_: Double.Type) throws -> Double { try value.real(Double.self, at: codingPath) }
    func decode(_: Float.Type) throws -> Float { try value.real(Float.self, at: codingPath) }
    func decode(_: Int.Type) throws -> Int { try value.integer(Int.self, at: codingPath) }
    func decode(_: Int8.Type) throws -> Int8 { try value.integer(Int8.self, at: codingPath) }
    func decode(_: Int16.Type) throws -> Int16 { try value.integer(Int16.self, at: codingPath) }
    func decode(_: Int32.Type) throws -> Int32 { try value.integer(Int32.self, at: codingPath) }
    func decode(_: Int64.Type) throws -> Int64 { try value.integer(Int64.self, at: codingPath) }
    func decode(_: UInt.Type) throws -> UInt { try value.integer(UInt.self, at: codingPath) }
    func decode(_: UInt8.Type) throws -> UInt8 { try value.integer(UInt8.self, at: codingPath) }
    func decode(_: UInt16.Type) throws -> UInt16 { try value.integer(UInt16.self, at: codingPath) }
    func decode(_: UInt32.Type) throws -> UInt32 { try value.integer(UInt32.self, at: codingPath) }
    func decode(_: UInt64.Type) throws -> UInt64 { try value.integer(UInt64.self, at: codingPath) }
    func decode<T: Decodable>(_: T.Type) throws -> T { try T(from: ValueDecoder(value: value, codingPath: codingPath)) }
}
