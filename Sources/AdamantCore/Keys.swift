/// An Ed25519 public key (32 bytes).
public struct PublicKey: Sendable, Hashable, StringCodable {
    /// 32 bytes.
    public static let length = 32
    /// The key's bytes.
    public let bytes: [UInt8]

    /// A key of exactly 32 bytes. Any 32 bytes are accepted here; `ChatKey` refuses a point that
    /// cannot encrypt.
    public init(bytes: [UInt8]) throws(KeyError) {
        guard bytes.count == Self.length else { throw .publicKeyLength(bytes.count) }
        self.bytes = bytes
    }

    /// 64 lowercase hex characters.
    public init(hex: some StringProtocol) throws(KeyError) {
        guard let bytes = Hex.decode(hex, length: Self.length) else { throw .publicKeyHex }
        self.bytes = bytes
    }

    /// 64 lowercase hex characters, as nodes write it.
    public var hex: String { Hex.encode(bytes) }
    /// The account this key belongs to.
    public var address: Address { Address(publicKey: self) }
    /// The hex form.
    public var description: String { hex }

    /// The same as `init(hex:)`, for `StringCodable`.
    public init(parsing text: String) throws { try self.init(hex: text) }
}

/// A 64-byte Ed25519 secret key (`seed ‖ publicKey`, libsodium's layout), zeroed on release.
public final class SecretKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let storage: SecureBytes

    init(storage: SecureBytes) { self.storage = storage }

    /// Lends the 64 raw bytes; copy them nowhere that outlives the call.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBytes(body)
    }

    /// A redaction marker, never the key.
    public var description: String { "<secret key redacted>" }
    /// The same redaction marker.
    public var debugDescription: String { description }
}

/// An account's keys.
public struct KeyPair: Sendable {
    /// The account's public key, which nodes and partners know it by.
    public let publicKey: PublicKey
    /// Signs, and opens messages; prints as a redaction marker.
    public let secretKey: SecretKey

    /// The account's address.
    public var address: Address { publicKey.address }

    /// Passphrase → BIP39 seed → SHA-256 → Ed25519 seed → keys (docs/protocol.md §1).
    public init(passphrase: Passphrase) {
        let seed = passphrase.seed()
        let ed25519Seed = seed.withUnsafeBytes { bytes in
            SecureBytes(count: Ed25519.seedLength) { Sodium.sha256(bytes, into: $0) }
        }
        self.init(ed25519Seed: ed25519Seed)
    }

    /// Keys from a raw 32-byte Ed25519 seed; zeroes `seed`.
    public init(seed: inout [UInt8]) throws(KeyError) {
        defer { Sodium.zero(&seed) }
        guard seed.count == Ed25519.seedLength else { throw .seedLength(seed.count) }
        self.init(ed25519Seed: SecureBytes(consuming: &seed))
    }

    /// Keys from a 64-byte secret key; its second half must be the public key of its first.
    /// Zeroes `secretKey`.
    public init(secretKey: inout [UInt8]) throws(KeyError) {
        defer { Sodium.zero(&secretKey) }
        guard secretKey.count == Ed25519.secretKeyLength else { throw .secretKeyLength(secretKey.count) }
        var seed = Array(secretKey[0..<Ed25519.seedLength])
        let claimed = Array(secretKey[Ed25519.seedLength...])
        try self.init(seed: &seed)
        guard publicKey.bytes == claimed else { throw .secretKeyMismatch }
    }

    private init(ed25519Seed: SecureBytes) {
        let (publicBytes, secret) = ed25519Seed.withUnsafeBytes { Ed25519.keyPair(seed: $0) }
        publicKey = try! PublicKey(bytes: publicBytes)  // libsodium always writes 32 bytes
        secretKey = SecretKey(storage: secret)
    }

    /// A fresh random account (for tests and the devnet).
    public static func random() -> KeyPair {
        var seed = Sodium.randomBytes(Ed25519.seedLength)
        return try! KeyPair(seed: &seed)
    }
}

/// Why bytes or text are not a key of the right shape.
public enum KeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A public key that is not 32 bytes (its length).
    case publicKeyLength(Int)
    /// A public key that is not 64 lowercase hex characters.
    case publicKeyHex
    /// A seed that is not 32 bytes (its length).
    case seedLength(Int)
    /// A secret key that is not 64 bytes (its length).
    case secretKeyLength(Int)
    /// A secret key whose halves do not belong together.
    case secretKeyMismatch

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .publicKeyLength: "publicKeyLength"
        case .publicKeyHex: "nonCanonicalHex"
        case .seedLength: "seedLength"
        case .secretKeyLength: "secretKeyLength"
        case .secretKeyMismatch: "secretKeyMismatch"
        }
    }

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .publicKeyLength(let n): "a public key is 32 bytes, got \(n)"
        case .publicKeyHex: "a public key is 64 lowercase hex characters"
        case .seedLength(let n): "an Ed25519 seed is 32 bytes, got \(n)"
        case .secretKeyLength(let n): "an Ed25519 secret key is 64 bytes, got \(n)"
        case .secretKeyMismatch: "the secret key's second half is not the public key of its first half"
        }
    }
}
