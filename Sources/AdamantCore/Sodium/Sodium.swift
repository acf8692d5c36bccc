import CSodium

/// The only door to libsodium. Every call checks its return code and input sizes;
/// nothing outside this folder touches a C pointer.
enum Sodium {
    /// `sodium_init` runs once, lazily and thread-safely, before the first primitive.
    private static let initialized: Bool = sodium_init() >= 0

    static func ensureInitialized() {
        // A failure here means a broken libsodium install; nothing can work without it.
        precondition(initialized, "libsodium failed to initialise")
    }

    /// For the calls that fail only on sizes this folder has already checked: a non-zero status
    /// means a broken library, and nothing computed from a failed call may be used.
    static func check(_ status: CInt, _ call: StaticString) {
        guard status == 0 else {
            fatalError("libsodium's \(call) failed (\(status)): the installed libsodium is broken")
        }
    }

    // MARK: Hashes

    static func sha256(_ message: [UInt8]) -> [UInt8] {
        ensureInitialized()
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        check(crypto_hash_sha256(&digest, message, UInt64(message.count)), "crypto_hash_sha256")
        return digest
    }

    /// SHA-256 straight into a caller's buffer, so a digest of a secret stays in secure memory.
    static func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count == Int(crypto_hash_sha256_BYTES))
        ensureInitialized()
        let status = crypto_hash_sha256(
            digest.baseAddress!.assumingMemoryBound(to: UInt8.self),
            message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count))
        check(status, "crypto_hash_sha256")
    }

    /// The first 8 bytes of SHA-256 over `parts` one after the other, read little-endian (ids
    /// and addresses): no digest array, and parts hashed where they are, not joined first.
    static func leadingUInt64(ofSHA256 first: [UInt8], _ second: [UInt8] = [], _ third: [UInt8] = []) -> UInt64 {
        ensureInitialized()
        var state = crypto_hash_sha256_state()
        check(crypto_hash_sha256_init(&state), "crypto_hash_sha256_init")
        func hash(_ part: [UInt8]) {
            guard !part.isEmpty else { return }
            check(crypto_hash_sha256_update(&state, part, UInt64(part.count)), "crypto_hash_sha256_update")
        }
        hash(first)
        hash(second)
        hash(third)
        return leadingUInt64(finishing: &state)
    }

    /// The first 8 bytes of the digest `state` finishes, read little-endian.
    static func leadingUInt64(finishing state: inout crypto_hash_sha256_state) -> UInt64 {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(crypto_hash_sha256_BYTES)) { digest in
            check(crypto_hash_sha256_final(&state, digest.baseAddress!), "crypto_hash_sha256_final")
            var value: UInt64 = 0
            for index in (0..<8).reversed() { value = value << 8 | UInt64(digest[index]) }
            return value
        }
    }

    static func sha512(_ message: [UInt8]) -> [UInt8] {
        ensureInitialized()
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha512_BYTES))
        check(crypto_hash_sha512(&digest, message, UInt64(message.count)), "crypto_hash_sha512")
        return digest
    }

    // MARK: Randomness and memory

    static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
    }
}
