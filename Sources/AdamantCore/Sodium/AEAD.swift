import CSodium

/// XChaCha20-Poly1305 (IETF) for data kept on this device, and keyed BLAKE2b for lookups.
/// The 24-byte nonce is random per message, which XChaCha's nonce size makes safe.
enum AEAD {
    static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// nonce ‖ ciphertext ‖ tag.
    static func seal(_ plaintext: [UInt8], associatedData: [UInt8], key: SecureBytes) -> [UInt8] {
        precondition(key.count == keyLength, "LocalSealingKey guarantees the length")
        let nonce = Sodium.randomBytes(nonceLength)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var sealedLength: UInt64 = 0
        let status = key.withUnsafeBytes { key in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                &sealed, &sealedLength, plaintext, UInt64(plaintext.count), associatedData,
                UInt64(associatedData.count),
                nil, nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        Sodium.check(status, "crypto_aead_xchacha20poly1305_ietf_encrypt")
        return nonce + sealed
    }

    /// nil when the bytes were not sealed with this key and associated data.
    static func open(_ sealed: [UInt8], associatedData: [UInt8], key: SecureBytes) -> [UInt8]? {
        guard key.count == keyLength, sealed.count >= nonceLength + tagLength else { return nil }
        let nonce = Array(sealed.prefix(nonceLength))
        let box = Array(sealed.dropFirst(nonceLength))
        var plaintext = [UInt8](repeating: 0, count: box.count - tagLength)
        var plaintextLength: UInt64 = 0
        let status = key.withUnsafeBytes { key in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &plaintext, &plaintextLength, nil, box, UInt64(box.count), associatedData, UInt64(associatedData.count),
                nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return status == 0 ? plaintext : nil
    }

    /// Keyed BLAKE2b-256 of `message`, written into secure memory (it is used as a key too).
    static func keyedHash(_ message: [UInt8], key: UnsafeRawBufferPointer) -> SecureBytes {
        precondition((Int(crypto_generichash_KEYBYTES_MIN)...Int(crypto_generichash_KEYBYTES_MAX)).contains(key.count))
        Sodium.ensureInitialized()
        return SecureBytes(count: 32) { out in
            let status = crypto_generichash(
                out.baseAddress!.assumingMemoryBound(to: UInt8.self), 32, message, UInt64(message.count),
                key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
            Sodium.check(status, "crypto_generichash")
        }
    }
}
