import CSodium

/// Ed25519 signing and the Ed25519 → X25519 conversions, over libsodium.
enum Ed25519 {
    static let seedLength = Int(crypto_sign_SEEDBYTES)
    static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)
    static let secretKeyLength = Int(crypto_sign_SECRETKEYBYTES)
    static let signatureLength = Int(crypto_sign_BYTES)

    /// `crypto_sign_seed_keypair`: the secret key is `seed || publicKey`.
    static func keyPair(seed: UnsafeRawBufferPointer) -> (publicKey: [UInt8], secretKey: SecureBytes) {
        precondition(seed.count == seedLength)
        Sodium.ensureInitialized()
        var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
        let secretKey = SecureBytes(count: secretKeyLength) { secret in
            let status = crypto_sign_seed_keypair(
                &publicKey,
                secret.baseAddress!.assumingMemoryBound(to: UInt8.self),
                seed.baseAddress!.assumingMemoryBound(to: UInt8.self))
            Sodium.check(status, "crypto_sign_seed_keypair")
        }
        return (publicKey, secretKey)
    }

    /// Deterministic RFC 8032 signature (`crypto_sign_detached`).
    static func sign(_ message: [UInt8], secretKey: SecureBytes) -> [UInt8] {
        Sodium.ensureInitialized()
        var signature = [UInt8](repeating: 0, count: signatureLength)
        let status = secretKey.withUnsafeBytes { secret in
            crypto_sign_detached(
                &signature, nil, message, UInt64(message.count),
                secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        Sodium.check(status, "crypto_sign_detached")
        return signature
    }

    /// Checks `signature` over the SHA-256 of `message` (what a transaction signs) and returns
    /// the first 8 bytes, read little-endian, of the SHA-256 of `message ‖ signature ‖ more`
    /// (its id); nil when the signature fails. `message` is hashed once for both: the state
    /// after it is copied, a plain C struct. The signing digest stays in a temporary buffer.
    static func verifiedLeadingUInt64(signature: [UInt8], sha256Of message: [UInt8], publicKey: [UInt8], more: [UInt8])
        -> UInt64?
    {
        guard signature.count == signatureLength, publicKey.count == publicKeyLength else { return nil }
        Sodium.ensureInitialized()
        var state = crypto_hash_sha256_state()
        Sodium.check(crypto_hash_sha256_init(&state), "crypto_hash_sha256_init")
        Sodium.check(crypto_hash_sha256_update(&state, message, UInt64(message.count)), "crypto_hash_sha256_update")
        var signing = state
        let verified = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(crypto_hash_sha256_BYTES)) {
            digest in
            Sodium.check(crypto_hash_sha256_final(&signing, digest.baseAddress!), "crypto_hash_sha256_final")
            return crypto_sign_verify_detached(signature, digest.baseAddress!, UInt64(digest.count), publicKey) == 0
        }
        guard verified else { return nil }
        Sodium.check(crypto_hash_sha256_update(&state, signature, UInt64(signature.count)), "crypto_hash_sha256_update")
        if !more.isEmpty {
            Sodium.check(crypto_hash_sha256_update(&state, more, UInt64(more.count)), "crypto_hash_sha256_update")
        }
        return Sodium.leadingUInt64(finishing: &state)
    }

    static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureLength, publicKey.count == publicKeyLength else { return false }
        Sodium.ensureInitialized()
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// The Montgomery form of an Ed25519 public key; nil for a point libsodium rejects.
    static func curve25519PublicKey(_ publicKey: [UInt8]) -> [UInt8]? {
        guard publicKey.count == publicKeyLength else { return nil }
        Sodium.ensureInitialized()
        var curve = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_BYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&curve, publicKey) == 0 else { return nil }
        return curve
    }

    /// SHA-512 of the seed, clamped: the X25519 secret of an Ed25519 secret key.
    static func curve25519SecretKey(_ secretKey: SecureBytes) -> SecureBytes {
        Sodium.ensureInitialized()
        return SecureBytes(count: Int(crypto_scalarmult_curve25519_BYTES)) { curve in
            let status = secretKey.withUnsafeBytes { secret in
                crypto_sign_ed25519_sk_to_curve25519(
                    curve.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            Sodium.check(status, "crypto_sign_ed25519_sk_to_curve25519")
        }
    }
}
