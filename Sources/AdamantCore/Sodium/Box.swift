import CSodium

/// NaCl `crypto_box` (Curve25519-XSalsa20-Poly1305) split into its two halves, so that the
/// shared key of a partner can be computed once and reused for every message.
enum Box {
    static let nonceLength = Int(crypto_box_NONCEBYTES)
    static let tagLength = Int(crypto_box_MACBYTES)
    static let sharedKeyLength = Int(crypto_box_BEFORENMBYTES)

    /// `crypto_box_beforenm`: nil when the partner key is a low-order point.
    static func sharedKey(curvePublicKey: [UInt8], curveSecretKey: SecureBytes) -> SecureBytes? {
        Sodium.ensureInitialized()
        var failed = false
        let key = SecureBytes(count: sharedKeyLength) { shared in
            curveSecretKey.withUnsafeBytes { secret in
                failed =
                    crypto_box_beforenm(
                        shared.baseAddress!.assumingMemoryBound(to: UInt8.self), curvePublicKey,
                        secret.baseAddress!.assumingMemoryBound(to: UInt8.self)) != 0
            }
        }
        return failed ? nil : key
    }

    /// Returns tag (16) ‖ ciphertext, the layout ADAMANT stores.
    static func seal(_ plaintext: [UInt8], nonce: [UInt8], sharedKey: SecureBytes) -> [UInt8] {
        precondition(nonce.count == nonceLength, "ChatNonce guarantees the length")
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let status = sharedKey.withUnsafeBytes { key in
            crypto_box_easy_afternm(
                &sealed, plaintext, UInt64(plaintext.count), nonce,
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        Sodium.check(status, "crypto_box_easy_afternm")
        return sealed
    }

    /// nil when authentication fails.
    static func open(_ sealed: [UInt8], nonce: [UInt8], sharedKey: SecureBytes) -> [UInt8]? {
        guard nonce.count == nonceLength, sealed.count >= tagLength else { return nil }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - tagLength)
        let status = sharedKey.withUnsafeBytes { key in
            crypto_box_open_easy_afternm(
                &plaintext, sealed, UInt64(sealed.count), nonce,
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return status == 0 ? plaintext : nil
    }
}
