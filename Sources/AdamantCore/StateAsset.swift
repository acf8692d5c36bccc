/// `asset.state` of a KVS transaction (type 9): a value stored under a key by its sender.
/// Only the sender's newest value for a key counts; nodes list them with `/api/states/get`.
public struct StateAsset: Sendable, Hashable, Encodable {
    /// At most 20 characters; may be empty (then it adds nothing to the signed bytes).
    public var key: String
    /// Plain text, or an AIP-3 encrypted `{"message","nonce"}` (see `KVSKey`).
    public var value: String
    /// The node takes 0 and 1; every client writes 0.
    public var type: Int32

    /// A value to store; `validate()` on its transaction checks the limits.
    public init(key: String, value: String, type: Int32 = 0) {
        self.key = key
        self.value = value
        self.type = type
    }

    /// docs/protocol.md §4.2: UTF-8 of the value, UTF-8 of the key if non-empty, the type as
    /// int32 LE.
    var signedBytes: [UInt8] {
        var bytes = Array(value.utf8)
        bytes += key.utf8
        bytes.appendLittleEndian(UInt32(bitPattern: type))
        return bytes
    }

    /// The node's fee input: the length of `Buffer.from(value, 'hex')`. Node decodes hex pairs
    /// (either case) until the first invalid one, so `"0x84…"` counts 0 bytes.
    var nodeHexLength: Int {
        var pairs = 0
        var iterator = value.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next(), Self.isHexDigit(high), Self.isHexDigit(low) {
            pairs += 1
        }
        return pairs
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    private enum CodingKeys: String, CodingKey { case key, value, type }

    /// Encodes `key`, `value` and `type` as nodes expect them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(value, forKey: .value)
        try container.encode(type, forKey: .type)
    }
}
