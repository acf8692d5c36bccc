/// A transaction id: the decimal of the first 8 bytes (little-endian) of SHA-256 over the
/// signed bytes. Ids exceed 2^53, so JSON carries them as strings.
public struct TransactionID: Sendable, Hashable, Comparable, StringCodable {
    /// The 64-bit number the id is the decimal of.
    public let number: UInt64

    /// The id with this number.
    public init(number: UInt64) { self.number = number }

    /// Canonical decimal: digits only, no leading zero, below 2^64.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 20, text.allSatisfy({ ("0"..."9").contains($0) }),
            text.count == 1 || text.first != "0", let number = UInt64(text)
        else { return nil }
        self.number = number
    }

    /// The decimal, as nodes write ids.
    public var description: String { String(number) }

    /// The same, throwing for text that is not an id (for `StringCodable`).
    public init(parsing text: String) throws {
        guard let id = TransactionID(text) else { throw NotAValue("not a transaction id") }
        self = id
    }

    /// Orders by number.
    public static func < (lhs: TransactionID, rhs: TransactionID) -> Bool { lhs.number < rhs.number }
}

/// The transaction types this package signs and reads. Others decode, but cannot be verified.
public struct TransactionType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The type's number on chain.
    public let rawValue: Int
    /// Any type number, known or not.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// An ADM transfer (type 0).
    public static let transfer = TransactionType(rawValue: 0)
    /// A chat message (type 8), perhaps with ADM: messages, rich messages, signals.
    public static let chat = TransactionType(rawValue: 8)
    /// KVS (type 9): a value the sender stores under a key; the past-timestamp window applies.
    public static let state = TransactionType(rawValue: 9)

    /// The type's number.
    public var description: String { String(rawValue) }
}

/// `asset.chat.type`: what the encrypted message is (docs/protocol.md §6.4).
public enum ChatType: Int, Sendable, Hashable, Codable, CaseIterable {
    /// 2017–2018 messages, charged 0.005 ADM a unit; shown like `.message`.
    case legacy = 0
    /// Plain text (AIP-4), or the comment of an in-chat transfer.
    case message = 1
    /// A JSON object (AIP-5): crypto transfers, replies, reactions, files.
    case rich = 2
    /// Control traffic to a service (AIP-6), never shown.
    case signal = 3
}

/// `asset.chat`: the ciphertext (tag ‖ box), the 24-byte nonce (`own_message`) and the type.
public struct ChatAsset: Sendable, Hashable, Encodable {
    /// The ciphertext: the 16-byte tag, then the box.
    public var message: [UInt8]
    /// The 24-byte nonce it was sealed with.
    public var nonce: [UInt8]
    /// What the plaintext is: a message, rich JSON or a signal.
    public var type: ChatType

    /// An asset from its parts; `ChatKey.seal` makes one from text.
    public init(message: [UInt8], nonce: [UInt8], type: ChatType) {
        self.message = message
        self.nonce = nonce
        self.type = type
    }

    private enum CodingKeys: String, CodingKey {
        case message
        case nonce = "own_message"
        case type
    }

    /// Encodes as nodes expect: hex, and the type's number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Hex.encode(message), forKey: .message)
        try container.encode(Hex.encode(nonce), forKey: .nonce)
        try container.encode(type.rawValue, forKey: .type)
    }
}
