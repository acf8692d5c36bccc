/// An account passphrase. Its bytes live in zeroed-on-release memory, it prints as a
/// redaction marker, and it can only be made by validating (or explicitly not validating) it.
public final class Passphrase: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    fileprivate let utf8: SecureBytes

    /// Validates a 12-word BIP39 English phrase with its checksum and zeroes `bytes`.
    public init(validating bytes: inout [UInt8]) throws(PassphraseError) {
        defer { Sodium.zero(&bytes) }
        // Array.withUnsafeBytes rethrows untyped errors, so carry the typed one out in a Result.
        let validation = bytes.withUnsafeBytes { phrase in
            Result { () throws(PassphraseError) in try BIP39.validate(phrase) }
        }
        _ = try validation.get()
        utf8 = SecureBytes(consuming: &bytes)
    }

    /// Validates `text`. The `inout [UInt8]` form is better where it can be used: it zeroes the
    /// caller's bytes, and a `String` cannot be wiped.
    public convenience init(validating text: String) throws(PassphraseError) {
        var bytes = Array(text.utf8)
        try self.init(validating: &bytes)
    }

    /// Takes any text as it is, for accounts made by tools that never checked BIP39 (the
    /// jsclient derives keys from any string). NFKD is applied, as every implementation does.
    public init(unvalidated text: String) {
        var bytes = CompatibilityDecomposition.utf8(of: text)
        utf8 = SecureBytes(consuming: &bytes)
    }

    /// The 64-byte BIP39 seed, handed to `body` and zeroed afterwards.
    public func withSeed<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try seed().withUnsafeBytes(body)
    }

    func seed() -> SecureBytes {
        utf8.withUnsafeBytes { PBKDF2.sha512(password: $0, salt: BIP39.salt, rounds: BIP39.rounds) }
    }

    /// A redaction marker, never the words.
    public var description: String { "<passphrase redacted>" }
    /// The same redaction marker.
    public var debugDescription: String { description }
}

extension Passphrase {
    /// Its UTF-8 bytes, handed to `body` and never copied out by this: for a keeper of
    /// passphrases (the desktop's keyring) that must store the words themselves.
    package func withUTF8<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try utf8.withUnsafeBytes(body)
    }
}
