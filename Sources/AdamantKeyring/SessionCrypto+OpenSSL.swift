internal import AdamantBus
internal import AdamantCore
internal import CCrypto
internal import CSodium

/// Diffie-Hellman in RFC 2409's Second Oakley Group (the 1024-bit MODP prime, generator 2),
/// the agreement of the `dh-ietf1024-sha256-aes128-cbc-pkcs7` session, over libcrypto.
struct DiffieHellman: Sendable {
    /// The group's prime, big-endian: 2^1024 − 2^960 − 1 + 2^64 × (⌊2^894 π⌋ + 129093).
    static let prime: [UInt8] = hexBytes(
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")
    /// The length of the prime, and so of a public key and the shared secret, in bytes.
    static let length = 128

    private let privateKey: SecureBytes
    /// 2^private mod p, big-endian in `length` bytes: what OpenSession sends.
    let publicKey: [UInt8]

    /// A new key pair: 1024 random bits of private key.
    init() throws(KeyringError) {
        try Self.loadLibrary()
        let privateKey = SessionRandom.secret(Self.length)
        self.privateKey = privateKey
        publicKey = try privateKey.withUnsafeBytes { exponent throws(KeyringError) in
            try [UInt8](unsafeUninitializedCapacity: Self.length) { result, count throws(KeyringError) in
                count = Self.length
                guard Self.power(of: [2], exponent, into: UnsafeMutableRawBufferPointer(result)) else {
                    throw .missingLibrary("libcrypto could not raise the group's generator to a power")
                }
            }
        }
    }

    /// The secret shared with the peer whose public key is `peer` (big-endian), in `length`
    /// bytes, zeros first. A key outside [2, p − 2] is refused: 0, 1 and p − 1 would make
    /// the secret one anyone could guess.
    func sharedSecret(with peer: [UInt8]) throws(KeyringError) -> SecureBytes {
        let significant = Array(peer.drop { $0 == 0 })
        let two = [UInt8](repeating: 0, count: Self.length - 1) + [2]
        var highest = Self.prime
        highest[Self.length - 1] -= 2  // p ends in 0xFF: no borrow
        guard significant.count <= Self.length else {
            throw .malformedAnswer("the service's Diffie-Hellman public key is longer than the group's prime")
        }
        let padded = [UInt8](repeating: 0, count: Self.length - significant.count) + significant
        guard !padded.lexicographicallyPrecedes(two), !highest.lexicographicallyPrecedes(padded) else {
            throw .malformedAnswer("the service's Diffie-Hellman public key is outside [2, p − 2]")
        }
        return try privateKey.withUnsafeBytes { exponent throws(KeyringError) in
            try SecureBytes(count: Self.length) { secret throws(KeyringError) in
                guard Self.power(of: padded, exponent, into: secret) else {
                    throw .missingLibrary("libcrypto could not compute the shared secret")
                }
            }
        }
    }

    /// base ^ exponent mod p into `result` (`length` bytes).
    private static func power(
        of base: [UInt8], _ exponent: UnsafeRawBufferPointer, into result: UnsafeMutableRawBufferPointer
    ) -> Bool {
        base.withUnsafeBufferPointer { base in
            prime.withUnsafeBufferPointer { prime in
                ccrypto_mod_exp(
                    result.baseAddress!.assumingMemoryBound(to: UInt8.self), result.count, base.baseAddress, base.count,
                    exponent.baseAddress!.assumingMemoryBound(to: UInt8.self), exponent.count, prime.baseAddress,
                    prime.count) == 1
            }
        }
    }

    static func loadLibrary() throws(KeyringError) {
        if let failure = ccrypto_load_failure() { throw .missingLibrary(String(cString: failure)) }
    }

    private static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }
}

/// AES-128-CBC with PKCS#7 padding, over libcrypto: how each secret of the encrypted session
/// travels.
enum AES128CBC {
    /// `plaintext` encrypted with `key` (16 bytes) and `iv` (16 bytes).
    static func encrypt(_ plaintext: [UInt8], key: SecureBytes, iv: [UInt8]) throws(KeyringError) -> [UInt8] {
        try DiffieHellman.loadLibrary()
        var written: Int?
        let ciphertext = [UInt8](unsafeUninitializedCapacity: plaintext.count + 16) { output, count in
            written = plaintext.withUnsafeBytes {
                run(encrypt: true, $0, key, iv, into: UnsafeMutableRawBufferPointer(output))
            }
            count = written ?? 0
        }
        guard written != nil else { throw .missingLibrary("libcrypto could not encrypt with AES-128-CBC") }
        return ciphertext
    }

    /// `ciphertext` decrypted with `key` and `iv`, handed to `body` in memory wiped after it;
    /// nil when it does not decrypt (a wrong key, or no whole blocks of PKCS#7 padding).
    static func decrypt<Value>(
        _ ciphertext: [UInt8], key: SecureBytes, iv: [UInt8], _ body: (UnsafeRawBufferPointer) -> Value
    ) throws(KeyringError) -> Value? {
        try DiffieHellman.loadLibrary()
        guard iv.count == 16 else { return nil }
        let capacity = ciphertext.count + 16
        return withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 16) { output in
            defer { sodium_memzero(output.baseAddress!, capacity) }
            let written = ciphertext.withUnsafeBytes { run(encrypt: false, $0, key, iv, into: output) }
            return written.map { body(UnsafeRawBufferPointer(rebasing: output[0..<$0])) }
        }
    }

    /// How many bytes were written into `output` (at least input + 16 bytes), nil on failure.
    private static func run(
        encrypt: Bool, _ input: UnsafeRawBufferPointer, _ key: SecureBytes, _ iv: [UInt8],
        into output: UnsafeMutableRawBufferPointer
    ) -> Int? {
        precondition(key.count == 16 && iv.count == 16 && output.count >= input.count + 16)
        var written = 0
        let done = key.withUnsafeBytes { key in
            iv.withUnsafeBufferPointer { iv in
                ccrypto_aes128_cbc(
                    encrypt ? 1 : 0, key.baseAddress!.assumingMemoryBound(to: UInt8.self), iv.baseAddress,
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written)
            }
        }
        return done == 1 ? written : nil
    }
}
