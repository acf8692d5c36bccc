/// The key of an account's private KVS values (AIP-3), as the iOS and web clients derive it
/// from the secret key. A value is `{"message":hex,"nonce":hex}`: a NaCl secretbox of
/// `<letters>{"payload":…}<letters>`, readable by the owner alone.
public final class KVSKey: Sendable {
    private let key: SecureBytes

    /// The KVS key of the account `secretKey` belongs to.
    public init(secretKey: SecretKey) { key = SecretBox.kvsKey(secretKey: secretKey.storage) }

    /// The KVS key of the account `keyPair` belongs to.
    public convenience init(keyPair: KeyPair) { self.init(secretKey: keyPair.secretKey) }

    // MARK: Sealing

    /// Encrypts `payload`, written as compact JSON with sorted keys, under a fresh nonce and
    /// random padding. Returns the text to store as `asset.state.value`.
    public func seal(payload: some Encodable) throws -> String {
        seal(payloadJSON: String(decoding: try JSONCoding.encode(payload), as: UTF8.self))
    }

    /// Encrypts `{"payload":<payloadJSON>}` between the padding; `payloadJSON` must be JSON.
    /// The nonce and padding are parameters only so test vectors can be reproduced.
    public func seal(payloadJSON: String, nonce: ChatNonce = .random(), padding: KVSPadding = .random()) -> String {
        var plaintext = Array((padding.prefix + #"{"payload":"# + payloadJSON + "}" + padding.suffix).utf8)
        defer { Sodium.zero(&plaintext) }
        let sealed = SecretBox.seal(plaintext, nonce: nonce.bytes, key: key)
        return #"{"message":"\#(Hex.encode(sealed))","nonce":"\#(Hex.encode(nonce.bytes))"}"#
    }

    // MARK: Opening

    /// Decrypts a stored value and decodes its `payload` as `T`. Any value may come from a
    /// hostile node: sizes are bounded first and every failure is a thrown error.
    public func open<T: Decodable>(_ value: String, payloadAs type: T.Type) throws(KVSCryptoError) -> T {
        var plaintext = try openPlaintext(value)
        defer { Sodium.zero(&plaintext) }
        // The clients read from the first `{` to the last `}`: the padding is letters only.
        guard let first = plaintext.firstIndex(of: UInt8(ascii: "{")),
            let last = plaintext.lastIndex(of: UInt8(ascii: "}")), first < last
        else { throw .noPayload }
        var json = Array(plaintext[first...last])
        defer { Sodium.zero(&json) }
        guard !JSONNesting.exceeds(KVSCryptoError.maxNesting, in: json) else { throw .tooDeep }
        do {
            return try JSONCoding.decode(KVSWrapped<T>.self, from: json).payload
        } catch {
            throw .payloadMismatch
        }
    }

    /// The decrypted text, padding included.
    func openPlaintext(_ value: String) throws(KVSCryptoError) -> [UInt8] {
        let envelope = try KVSEnvelope(value)
        guard envelope.nonce.count == SecretBox.nonceLength else { throw .nonceLength(envelope.nonce.count) }
        guard var plaintext = SecretBox.open(envelope.message, nonce: envelope.nonce, key: key) else {
            throw .authenticationFailed
        }
        guard String(validating: plaintext, as: UTF8.self) != nil else {
            Sodium.zero(&plaintext)
            throw .invalidUTF8
        }
        return plaintext
    }
}

private struct KVSWrapped<Payload: Decodable>: Decodable { let payload: Payload }

/// The letters around an AIP-3 plaintext, which hide the payload's exact length a little.
public struct KVSPadding: Sendable, Hashable {
    /// The letters before the payload.
    public let prefix: String
    /// The letters after the payload.
    public let suffix: String

    /// Lower-case ASCII letters only, at most 64 each: the clients find the payload by its braces.
    public init(prefix: String, suffix: String) throws(KVSCryptoError) {
        for text in [prefix, suffix] {
            guard text.utf8.count <= 64, text.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })
            else {
                throw .invalidPadding
            }
        }
        self.prefix = prefix
        self.suffix = suffix
    }

    /// 1–10 random letters on each side, as the web client writes.
    public static func random() -> KVSPadding {
        func letters() -> String {
            let bytes = Sodium.randomBytes(11)
            let count = Int(bytes[0] % 10) + 1
            return String(decoding: bytes[1...count].map { UInt8(ascii: "a") + $0 % 26 }, as: UTF8.self)
        }
        return KVSPadding(checked: letters(), letters())
    }

    private init(checked prefix: String, _ suffix: String) {
        self.prefix = prefix
        self.suffix = suffix
    }
}

/// `{"message": hex, "nonce": hex}`, the stored form of an encrypted value.
private struct KVSEnvelope {
    let message: [UInt8]
    let nonce: [UInt8]

    init(_ value: String) throws(KVSCryptoError) {
        let bytes = Array(value.utf8)
        guard bytes.count <= Limits.maxStateValueLength else { throw .tooLarge(bytes.count) }
        guard !JSONNesting.exceeds(KVSCryptoError.maxNesting, in: bytes) else { throw .notEncrypted }
        struct Fields: Decodable {
            let message: String
            let nonce: String
        }
        guard let fields = try? JSONCoding.decode(Fields.self, from: bytes) else { throw .notEncrypted }
        guard let message = Hex.decode(fields.message), let nonce = Hex.decode(fields.nonce) else {
            throw .notEncrypted
        }
        self.message = message
        self.nonce = nonce
    }
}

/// A bracket count outside strings, so no JSON parser is asked to recurse deeper than
/// `limit`, whatever its own limits.
enum JSONNesting {
    static func exceeds(_ limit: Int, in bytes: [UInt8]) -> Bool {
        var depth = 0
        var strings = JSONStrings()
        for byte in bytes where strings.isStructure(byte) {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return false
    }
}

/// Tells JSON's structure from its strings' contents, byte after byte, for scans that count
/// brackets or commas without parsing.
package struct JSONStrings {
    private var inString = false
    private var escaped = false

    package init() {}

    /// Takes the next byte: true when it is structure, false when it is part of a string (its
    /// quotes included).
    package mutating func isStructure(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return false
        }
        inString = byte == UInt8(ascii: "\"")
        return !inString
    }
}

/// Why a KVS value cannot be sealed or opened.
public enum KVSCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Payloads nest a few levels (an address book is three); anything deeper is refused.
    static let maxNesting = 32

    /// Larger than a node stores (the size).
    case tooLarge(Int)
    /// Not an encrypted `{"message","nonce"}` object.
    case notEncrypted
    /// A nonce that is not 24 bytes (its length).
    case nonceLength(Int)
    /// `authenticationFailed`: a box that does not open with this key (another owner, or
    /// altered). `invalidUTF8`: plaintext that is not UTF-8. `noPayload`: no JSON object inside.
    /// `tooDeep`: nesting deeper than 32 levels.
    case authenticationFailed, invalidUTF8, noPayload, tooDeep
    /// `payloadMismatch`: a payload not of the shape asked for. `invalidPadding`: padding that is
    /// not lower-case letters, at most 64 a side.
    case payloadMismatch, invalidPadding

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .tooLarge: "tooLarge"
        case .notEncrypted: "notEncrypted"
        case .nonceLength: "nonceLength"
        case .authenticationFailed: "authenticationFailed"
        case .invalidUTF8: "invalidUTF8"
        case .noPayload: "noPayload"
        case .tooDeep: "tooDeep"
        case .payloadMismatch: "payloadMismatch"
        case .invalidPadding: "invalidPadding"
        }
    }

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .tooLarge(let n): "the KVS value is \(n) bytes, more than a node stores (\(Limits.maxStateValueLength))"
        case .notEncrypted: #"the KVS value is not an encrypted {"message","nonce"} object"#
        case .nonceLength(let n): "the KVS nonce must be 24 bytes, got \(n)"
        case .authenticationFailed:
            "the KVS value does not decrypt with this account's key (another owner, or tampered)"
        case .invalidUTF8: "the decrypted KVS value is not valid UTF-8"
        case .noPayload: "the decrypted KVS value holds no JSON object"
        case .tooDeep: "the KVS value nests deeper than \(Self.maxNesting) levels"
        case .payloadMismatch: "the decrypted KVS payload is not of the expected shape"
        case .invalidPadding: "KVS padding is lower-case letters only, at most 64 on each side"
        }
    }
}
