import CSodium

/// PBKDF2-HMAC-SHA512 with a 64-byte output, the BIP39 seed function.
///
/// The HMAC key is fixed for all 2048 rounds, so its inner and outer pad states are computed
/// once and copied for each round: two SHA-512 compressions per round instead of four.
enum PBKDF2 {
    static let outputLength = 64

    static func sha512(password: UnsafeRawBufferPointer, salt: [UInt8], rounds: Int) -> SecureBytes {
        Sodium.ensureInitialized()
        var keyed = crypto_auth_hmacsha512_state()
        withUnsafePointer(to: UInt8(0)) { empty in
            let key = password.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? empty
            Sodium.check(crypto_auth_hmacsha512_init(&keyed, key, password.count), "crypto_auth_hmacsha512_init")
        }
        var round = keyed
        defer {
            withUnsafeMutableBytes(of: &keyed) { Sodium.zero($0) }
            withUnsafeMutableBytes(of: &round) { Sodium.zero($0) }
        }

        return SecureBytes(count: outputLength) { output in
            // U(j) lives in secure memory too: it is as secret as the seed it sums to.
            let block = SecureBytes(count: outputLength) { block in
                let u = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let t = output.baseAddress!.assumingMemoryBound(to: UInt8.self)

                // U1 = HMAC(password, salt || INT_32_BE(1))
                let blockIndex: [UInt8] = [0, 0, 0, 1]
                Sodium.check(
                    crypto_auth_hmacsha512_update(&round, salt, UInt64(salt.count))
                        | crypto_auth_hmacsha512_update(&round, blockIndex, 4)
                        | crypto_auth_hmacsha512_final(&round, u),
                    "crypto_auth_hmacsha512")
                t.update(from: u, count: outputLength)

                // U(j) = HMAC(password, U(j-1)); T = U1 xor U2 xor ...
                for _ in 1..<rounds {
                    round = keyed
                    // Two calls per round: one check of both keeps the loop at libsodium's speed.
                    let status =
                        crypto_auth_hmacsha512_update(&round, u, UInt64(outputLength))
                        | crypto_auth_hmacsha512_final(&round, u)
                    Sodium.check(status, "crypto_auth_hmacsha512")
                    for i in 0..<outputLength { t[i] ^= u[i] }
                }
            }
            _ = block  // released, and so zeroed, here
        }
    }
}
