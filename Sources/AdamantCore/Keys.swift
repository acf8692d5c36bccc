/// An Ed25519 public key (32 bytes).
public struct PublicKey: Sendable, Hashable, StringCodable {
    public static let length = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(KeyError) {
        guard bytes.count == Self.length else { throw .publicKeyLength(bytes.count) }
        self.bytes = bytes
    }

    /// 64 lowercase hex characters.
    public init(hex: some StringProtocol) throws(KeyError) {
        guard let bytes = Hex.decode(hex, length: Self.length) else { throw .publicKeyHex }
        self.bytes = bytes
    }

    public var hex: String { Hex.encode(bytes) }
    public var address: Address { Address(publicKey: self) }
    public var description: String { hex }

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

    public var description: String { "<secret key redacted>" }
    public var debugDescription: String { description }
}

/// An account's keys.
public struct KeyPair: Sendable {
    public let publicKey: PublicKey
    public let secretKey: SecretKey

    public var address: Address { publicKey.address }

    /// Passphrase → BIP39 seed → SHA-256 → Ed25519 seed → keys (protocol §1).
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

public enum KeyError: Error, Sendable, Hashable, CustomStringConvertible {
    case publicKeyLength(Int), publicKeyHex, seedLength(Int), secretKeyLength(Int), secretKeyMismatch

    public var kind: String {
        switch self {
        case .publicKeyLength: "publicKeyLength"
        case .publicKeyHex: "nonCanonicalHex"
        case .seedLength: "seedLength"
        case .secretKeyLength: "secretKeyLength"
        case .secretKeyMismatch: "secretKeyMismatch"
        }
    }

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
