import CSodium

/// NaCl `crypto_secretbox` (XSalsa20-Poly1305), the cipher of AIP-3 KVS values, and the key
/// the clients derive for it from an account's secret key.
enum SecretBox {
    static let keyLength = Int(crypto_secretbox_KEYBYTES)
    static let nonceLength = Int(crypto_secretbox_NONCEBYTES)
    static let tagLength = Int(crypto_secretbox_MACBYTES)

    /// The clients' KVS key: `ed2curve.convertSecretKey(SHA-256(secretKey))`, i.e. SHA-512 of
    /// the 32-byte digest, clamped. libsodium's conversion hashes the first 32 bytes of a
    /// 64-byte key, so the digest goes into the first half of a zeroed 64-byte buffer.
    static func kvsKey(secretKey: SecureBytes) -> SecureBytes {
        let padded = secretKey.withUnsafeBytes { secret in
            SecureBytes(count: Ed25519.secretKeyLength) { buffer in
                Sodium.sha256(secret, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<32]))
            }
        }
        return Ed25519.curve25519SecretKey(padded)
    }

    /// tag (16) ‖ ciphertext, as `crypto_secretbox_easy` and tweetnacl's `secretbox` write it.
    static func seal(_ plaintext: [UInt8], nonce: [UInt8], key: SecureBytes) -> [UInt8] {
        precondition(nonce.count == nonceLength && key.count == keyLength, "KVSKey guarantees the lengths")
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let status = key.withUnsafeBytes { key in
            crypto_secretbox_easy(
                &sealed, plaintext, UInt64(plaintext.count), nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self)
            )
        }
        Sodium.check(status, "crypto_secretbox_easy")
        return sealed
    }

    /// nil when the nonce is not 24 bytes, the box is shorter than its tag, or it does not
    /// authenticate under `key`.
    static func open(_ sealed: [UInt8], nonce: [UInt8], key: SecureBytes) -> [UInt8]? {
        guard nonce.count == nonceLength, key.count == keyLength, sealed.count >= tagLength else { return nil }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - tagLength)
        let status = key.withUnsafeBytes { key in
            crypto_secretbox_open_easy(
                &plaintext, sealed, UInt64(sealed.count), nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        if status == 0 { return plaintext }
        Sodium.zero(&plaintext)
        return nil
    }
}
