internal import AdamantBus
internal import AdamantCore
internal import CSodium

/// HKDF (RFC 5869) with HMAC-SHA256, over libsodium: how the encrypted session's AES key is
/// made from the Diffie-Hellman secret.
enum HKDF {
    /// `count` bytes (at most 255 × 32) of key from the key material `key`; an empty `salt`
    /// is the hash's length of zeros, as RFC 5869 says.
    static func sha256(key: UnsafeRawBufferPointer, salt: [UInt8] = [], info: [UInt8] = [], count: Int) -> SecureBytes {
        precondition(count > 0 && count <= 255 * 32, "HKDF-SHA256 makes 1 to 8160 bytes")
        ensureSodium()
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { prk in
            defer { sodium_memzero(prk.baseAddress!, 32) }
            // Extract: PRK = HMAC(salt, key material).
            (salt.isEmpty ? [UInt8](repeating: 0, count: 32) : salt).withUnsafeBytes { salt in
                hmac(key: salt, [key], into: prk.baseAddress!)
            }
            let pseudorandom = UnsafeRawBufferPointer(prk)
            // Expand: T(i) = HMAC(PRK, T(i-1) | info | i), the first `count` bytes of T(1) | T(2) | …
            return SecureBytes(count: count) { output in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { block in
                    defer { sodium_memzero(block.baseAddress!, 32) }
                    var (written, counter): (Int, UInt8) = (0, 1)
                    while written < count {
                        let previous = UnsafeRawBufferPointer(start: block.baseAddress!, count: counter == 1 ? 0 : 32)
                        info.withUnsafeBytes { info in
                            withUnsafeBytes(of: counter) { index in
                                hmac(key: pseudorandom, [previous, info, index], into: block.baseAddress!)
                            }
                        }
                        let taken = min(32, count - written)
                        output.baseAddress!.advanced(by: written).copyMemory(from: block.baseAddress!, byteCount: taken)
                        (written, counter) = (written + taken, counter &+ 1)
                    }
                }
            }
        }
    }

    /// HMAC-SHA256 of `parts`, one after the other, into 32 bytes at `digest`; `key` is never
    /// empty (an empty salt is 32 zeros by then).
    private static func hmac(
        key: UnsafeRawBufferPointer, _ parts: [UnsafeRawBufferPointer], into digest: UnsafeMutablePointer<UInt8>
    ) {
        var state = crypto_auth_hmacsha256_state()
        // The state holds the key's pads: wiped whatever happens.
        defer { withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress!, $0.count) } }
        _ = crypto_auth_hmacsha256_init(&state, key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
        for part in parts where !part.isEmpty {
            _ = crypto_auth_hmacsha256_update(
                &state, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        _ = crypto_auth_hmacsha256_final(&state, digest)
    }
}

/// libsodium's randomness and wipe, for the session's keys and IVs.
enum SessionRandom {
    /// `count` random bytes, straight into secure memory.
    static func secret(_ count: Int) -> SecureBytes {
        ensureSodium()
        return SecureBytes(count: count) { randombytes_buf($0.baseAddress!, $0.count) }
    }

    /// `count` random bytes that are no secret (an IV).
    static func bytes(_ count: Int) -> [UInt8] {
        ensureSodium()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}

/// `sodium_init` once, before the first primitive (libsodium makes later calls no-ops).
private let sodiumReady: Bool = sodium_init() >= 0

private func ensureSodium() {
    // A failure here means a broken libsodium install; nothing can work without it.
    precondition(sodiumReady, "libsodium failed to initialise")
}
