import AdamantCore
import CSodium

/// Passphrase → key pair through AdamantCore, next to the same derivation written straight on
/// libsodium in this process: the floor a Swift wrapper cannot beat.
func keysBenchmark() async throws -> [Figure] {
    let phrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
    let passphrase = try Passphrase(validating: phrase)
    let floor = LibsodiumKeys(phrase: phrase)
    // The floor must do the same work, so it must give the same key.
    guard floor.derivePublicKey() == KeyPair(passphrase: passphrase).publicKey.bytes else {
        throw BenchmarkError(description: "the libsodium floor derives another key than AdamantCore")
    }
    let (ours, direct) = await pairedTimings(Budget(iterations: 500)) {
        _ = KeyPair(passphrase: passphrase)
    } floor: {
        _ = floor.derivePublicKey()
    }
    return [
        Figure(
            "passphrase → key pair", .milliseconds, value: ours.median,
            floor: Figure.Floor(name: "libsodium", value: direct.median),
            goal: .ratio(.atMost, 1.1),
            note:
                "ours \(ours.summary); floor: PBKDF2-HMAC-SHA512 with the pad states kept, SHA-256, crypto_sign_seed_keypair"
        )
    ]
}

/// BIP39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic") → SHA-256 → Ed25519, as a
/// C program would call libsodium: the HMAC state keyed once, copied for every round.
struct LibsodiumKeys {
    let password: [UInt8]

    init(phrase: String) {
        _ = sodium_init()
        password = Array(phrase.utf8)
    }

    func derivePublicKey() -> [UInt8] {
        var keyed = crypto_auth_hmacsha512_state()
        crypto_auth_hmacsha512_init(&keyed, password, password.count)
        let u = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        defer {
            u.deallocate()
            t.deallocate()
        }

        var state = keyed
        let salt = Array("mnemonic".utf8) + [0, 0, 0, 1]  // the salt, then block number 1
        crypto_auth_hmacsha512_update(&state, salt, UInt64(salt.count))
        crypto_auth_hmacsha512_final(&state, u)
        t.update(from: u, count: 64)
        for _ in 1..<2048 {
            state = keyed
            crypto_auth_hmacsha512_update(&state, u, 64)
            crypto_auth_hmacsha512_final(&state, u)
            for i in 0..<64 { t[i] ^= u[i] }
        }

        var seed = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256(&seed, t, 64)
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return publicKey
    }
}
