/// What one `encode(to:)` left: a scalar, members or elements; nothing at all is written as
/// `{}`, as `JSONEncoder` writes it. A class, because a nested container keeps writing into
/// the node its parent already holds.
final class EncodedNode {
    private var scalar: JSONValue?
    private var members: [String: EncodedNode]?
    private var elements: [EncodedNode]?

    init() {}

    func set(_ value: JSONValue) { (scalar, members, elements) = (value, nil, nil) }
    func makeObject() { if members == nil { (scalar, members, elements) = (nil, [:], nil) } }
    func makeArray() { if elements == nil { (scalar, members, elements) = (nil, nil, []) } }

    /// The node of `key`, replacing what was there, as a second encode of a key does.
    func member(_ key: String) -> EncodedNode {
        makeObject()
        let node = EncodedNode()
        members?[key] = node
        return node
    }

    func appendElement() -> EncodedNode {
        makeArray()
        let node = EncodedNode()
        elements?.append(node)
        return node
    }

    var elementCount: Int { elements?.count ?? 0 }

    /// What was encoded, an object's keys sorted by their UTF-8 bytes.
    var value: JSONValue {
        if let scalar { return scalar }
        if let elements { return .array(elements.map(\.value)) }
        let sorted = (members ?? [:]).sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return .object(sorted.map { (key: $0.key, value: $0.value.value) })
    }
}

extension JSONValue {
    fileprivate static func real<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: T, at path: [any CodingKey]
    ) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path, debugDescription: "\(value) is not a JSON number."))
        }
        return .number(String(value))
    }
}

/// An `Encoder` that fills an `EncodedNode`; see `JSONCoding.encode`.
struct ValueEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedWriter<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedWriter(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueWriter(node: node, codingPath: codingPath)
    }
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, _ key: Key) { node.member(key.stringValue).set(value) }

    mutating func encodeNil(forKey key: Key) { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try .real(value, at: codingPath + [key]), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try .real(value, at: codingPath + [key]), key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(.number(String(value)), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        let key = PositionKey(stringValue: "super")
        return ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedWriter: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.elementCount }

    private func nextPath() -> [any CodingKey] { codingPath + [PositionKey(intValue: count)] }
    private func append(_ value: JSONValue) { node.appendElement().set(value) }

    mutating func encodeNil() { append(.null) }
    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try .real(value, at: nextPath())) }
    mutating func encode(_ value: Float) throws { append(try .real(value, at: nextPath())) }
    mutating func encode(_ value: Int) { append(.number(String(value))) }
    mutating func encode(_ value: Int8) { append(.number(String(value))) }
    mutating func encode(_ value: Int16) { append(.number(String(value))) }
    mutating func encode(_ value: Int32) { append(.number(String(value))) }
    mutating func encode(_ value: Int64) { append(.number(String(value))) }
    mutating func encode(_ value: UInt) { append(.number(String(value))) }
    mutating func encode(_ value: UInt8) { append(.number(String(value))) }
    mutating func encode(_ value: UInt16) { append(.number(String(value))) }
    mutating func encode(_ value: UInt32) { append(.number(String(value))) }
    mutating func encode(_ value: UInt64) { append(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath()
        try value.encode(to: ValueEncoder(node: node.appendElement(), codingPath: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let path = nextPath()
        return ValueEncoder(node: node.appendElement(), codingPath: path).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath()
        return ValueEncoder(node: node.appendElement(), codingPath: path).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        let path = nextPath()
        return ValueEncoder(node: node.appendElement(), codingPath: path)
    }
}

private struct SingleValueWriter: SingleValueEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() { node.set(.null) }
    mutating func encode(_ value: Bool) { node.set(.bool(value)) }
    mutating func encode(_ value: String) { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try .real(value, at: codingPath)) }
    mutating func encode(_ value: Float) throws { node.set(try .real(value, at: codingPath)) }
    mutating func encode(_ value: Int) { node.set(.number(String(value))) }
    mutating func encode(_ value: Int8) { node.set(.number(String(value))) }
    mutating func encode(_ value: Int16) { node.set(.number(String(value))) }
    mutating func encode(_ value: Int32) { node.set(.number(String(value))) }
    mutating func encode(_ value: Int64) { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt) { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt8) { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt16) { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt32) { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt64) { node.set(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: ValueEncoder(node: node, codingPath: codingPath))
    }
}
