/// The key shared by an account and one chat partner (docs/protocol.md §6): X25519 of the converted
/// Ed25519 keys, hashed by HSalsa20. Symmetric, so the sender of a message can read it back too.
///
/// Computing it is the expensive part of decryption; a poller keeps one per partner.
public final class ChatKey: Sendable {
    private let shared: SecureBytes

    /// The key `secretKey`'s account shares with `partner`.
    ///
    /// - Throws: `ChatCryptoError.invalidPartnerKey` for a key that is not a usable point.
    public init(secretKey: SecretKey, partner: PublicKey) throws(ChatCryptoError) {
        guard let curvePartner = Ed25519.curve25519PublicKey(partner.bytes) else { throw .invalidPartnerKey }
        let curveSecret = Ed25519.curve25519SecretKey(secretKey.storage)
        guard let shared = Box.sharedKey(curvePublicKey: curvePartner, curveSecretKey: curveSecret) else {
            throw .invalidPartnerKey
        }
        self.shared = shared
    }

    /// Encrypts `plaintext` (its UTF-8 bytes, unnormalised) under a fresh random nonce, or the
    /// given one for test vectors. Never reuse a nonce.
    public func seal(_ plaintext: String, type: ChatType = .message, nonce: ChatNonce = .random()) -> ChatAsset {
        ChatAsset(
            message: Box.seal(Array(plaintext.utf8), nonce: nonce.bytes, sharedKey: shared), nonce: nonce.bytes,
            type: type)
    }

    /// Decrypts and decodes strict UTF-8; anything else is an error, never garbage text.
    public func open(_ asset: ChatAsset) throws(ChatCryptoError) -> String {
        guard asset.nonce.count == Box.nonceLength else { throw .nonceLength(asset.nonce.count) }
        guard var plaintext = Box.open(asset.message, nonce: asset.nonce, sharedKey: shared) else {
            throw .authenticationFailed
        }
        defer { Sodium.zero(&plaintext) }
        guard let text = String(validating: plaintext, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }
}

/// A 24-byte chat nonce: a wrong length is a thrown error at the boundary, never a trap later.
public struct ChatNonce: Sendable, Hashable {
    /// 24 bytes.
    public static let length = Box.nonceLength
    /// The nonce's bytes.
    public let bytes: [UInt8]

    /// A nonce of exactly `length` bytes.
    public init(bytes: [UInt8]) throws(ChatCryptoError) {
        guard bytes.count == Self.length else { throw .nonceLength(bytes.count) }
        self.bytes = bytes
    }

    /// A fresh nonce from libsodium's CSPRNG.
    public static func random() -> ChatNonce { ChatNonce(checked: Sodium.randomBytes(length)) }

    private init(checked bytes: [UInt8]) { self.bytes = bytes }
}

extension Transaction {
    /// The plaintext of a chat transaction, for either party: `keyPair` must be the sender's or
    /// the recipient's, and `partner` the other side's public key.
    public func decryptMessage(with keyPair: KeyPair, partner: PublicKey) throws(ChatCryptoError) -> String {
        guard let chat else { throw .notAChat }
        return try ChatKey(secretKey: keyPair.secretKey, partner: partner).open(chat)
    }
}

/// Why a chat message cannot be sealed or opened.
public enum ChatCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The partner's key is not a usable point.
    case invalidPartnerKey
    /// The nonce is not 24 bytes (its length).
    case nonceLength(Int)
    /// `authenticationFailed`: the box does not open with these keys (the wrong account, or
    /// altered). `invalidUTF8`: the plaintext is not UTF-8. `notAChat`: the transaction carries
    /// no chat.
    case authenticationFailed, invalidUTF8, notAChat

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .invalidPartnerKey: "invalidPartnerKey"
        case .nonceLength: "nonceLength"
        case .authenticationFailed: "authenticationFailed"
        case .invalidUTF8: "invalidUTF8"
        case .notAChat: "notAChat"
        }
    }

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .invalidPartnerKey: "the partner's public key cannot be used for encryption"
        case .nonceLength(let n): "the chat nonce must be 24 bytes, got \(n)"
        case .authenticationFailed: "the message does not decrypt with these keys (wrong account, or tampered)"
        case .invalidUTF8: "the decrypted message is not valid UTF-8"
        case .notAChat: "the transaction carries no chat message"
        }
    }
}
