/// Keys for what adm-push keeps about an account on this device (tokens, providers, device
/// ids): derived from the account's secret key each time it is opened and never stored, so the
/// files alone reveal nothing. One key seals (XChaCha20-Poly1305); another makes lookup tags
/// (keyed BLAKE2b), so a row can be found by its token without the token being stored.
public final class LocalSealingKey: Sendable {
    private let sealing: SecureBytes
    private let tagging: SecureBytes

    /// `purpose` separates the keys of different stores made from one account.
    public init(keyPair: KeyPair, purpose: String) {
        let seed = keyPair.secretKey.storage  // seed ‖ public key; the seed is the secret half
        (sealing, tagging) = seed.withUnsafeBytes { secret in
            let seed = UnsafeRawBufferPointer(rebasing: secret.prefix(32))
            return (
                AEAD.keyedHash(Array("adm-push seal \(purpose)".utf8), key: seed),
                AEAD.keyedHash(Array("adm-push tag \(purpose)".utf8), key: seed)
            )
        }
    }

    /// nonce ‖ ciphertext ‖ tag. `context` (the row it belongs to) must be given again to open
    /// it, so sealed values cannot be swapped between rows.
    public func seal(_ plaintext: [UInt8], context: [UInt8]) -> [UInt8] {
        AEAD.seal(plaintext, associatedData: context, key: sealing)
    }

    /// The plaintext `seal(_:context:)` was given, if `sealed` was sealed by this key for this
    /// `context` and not altered since.
    public func open(_ sealed: [UInt8], context: [UInt8]) throws(LocalSealingError) -> [UInt8] {
        guard let plaintext = AEAD.open(sealed, associatedData: context, key: sealing) else { throw .unreadable }
        return plaintext
    }

    /// A 32-byte tag of `value`: equal values give equal tags, and only this key makes them.
    public func tag(_ value: [UInt8]) -> [UInt8] {
        tagging.withUnsafeBytes { AEAD.keyedHash(value, key: $0) }.withUnsafeBytes { Array($0) }
    }
}

/// Why sealed bytes do not open.
public enum LocalSealingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Sealed by another account or key, or altered on disk.
    case unreadable

    /// What happened, and that it is this account's key that does not fit.
    public var description: String {
        "stored data cannot be opened with this account's key (another account's, or altered on disk)"
    }
}
