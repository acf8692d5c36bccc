import AdamantBus
import AdamantCore
import KeyringTestSupport
import Testing

@testable import AdamantKeyring

/// The encrypted session's primitives against published vectors, so that a broken one fails
/// here before any keyring test does.
@Suite struct SessionCryptoTests {
    /// RFC 5869, A.1 (test case 1) and A.3 (test case 3: no salt and no info, as the session uses).
    @Test(arguments: [
        (
            "000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9",
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        ),
        ("", "", "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ])
    func hkdfSHA256(_ salt: String, _ info: String, _ expected: String) {
        let key = [UInt8](repeating: 0x0b, count: 22)
        let output = key.withUnsafeBytes { HKDF.sha256(key: $0, salt: bytes(salt), info: bytes(info), count: 42) }
        #expect(output.withUnsafeBytes { Array($0) } == bytes(expected))
    }

    static let nistKey = "2b7e151628aed2a6abf7158809cf4f3c"
    static let nistIV = "000102030405060708090a0b0c0d0e0f"
    static let nistPlaintext =
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
    /// NIST SP 800-38A F.2.1's four blocks, then the block of PKCS#7 padding (sixteen 0x10),
    /// which `openssl enc -aes-128-cbc` gives for the same key and IV.
    static let nistCiphertext =
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e22229516"
        + "3ff1caa1681fac09120eca307586e1a7" + "8cb82807230e1321d3fae00d18cc2012"

    @Test func aes128CBCEncryptsAsNISTSays() throws {
        var key = bytes(Self.nistKey)
        let ciphertext = try AES128CBC.encrypt(
            bytes(Self.nistPlaintext), key: SecureBytes(consuming: &key), iv: bytes(Self.nistIV))
        #expect(ciphertext == bytes(Self.nistCiphertext))
    }

    @Test func aes128CBCDecryptsAndChecksThePadding() throws {
        var key = bytes(Self.nistKey)
        let secure = SecureBytes(consuming: &key)
        let plaintext = try AES128CBC.decrypt(bytes(Self.nistCiphertext), key: secure, iv: bytes(Self.nistIV)) {
            Array($0)
        }
        #expect(plaintext == bytes(Self.nistPlaintext))
        // Without the padding block, the last block's padding is 0x10 bytes of plaintext.
        let unpadded = try AES128CBC.decrypt(
            bytes(String(Self.nistCiphertext.prefix(128))), key: secure, iv: bytes(Self.nistIV)
        ) {
            Array($0)
        }
        #expect(unpadded == nil)
        var wrong = [UInt8](repeating: 7, count: 16)
        let withWrongKey = try AES128CBC.decrypt(
            bytes(Self.nistCiphertext), key: SecureBytes(consuming: &wrong), iv: bytes(Self.nistIV)
        ) { Array($0) }
        #expect(withWrongKey == nil)
        let empty = try AES128CBC.encrypt([], key: secure, iv: bytes(Self.nistIV))
        #expect(empty.count == 16)
        #expect(try AES128CBC.decrypt(empty, key: secure, iv: bytes(Self.nistIV)) { Array($0) } == [])
    }

    @Test func twoKeyPairsAgreeOnTheSecret() throws {
        let (one, other) = (try DiffieHellman(), try DiffieHellman())
        #expect(one.publicKey.count == 128 && one.publicKey != other.publicKey)
        let secrets = (try one.sharedSecret(with: other.publicKey), try other.sharedSecret(with: one.publicKey))
        #expect(secrets.0.withUnsafeBytes { Array($0) } == secrets.1.withUnsafeBytes { Array($0) })
        #expect(secrets.0.count == 128)
    }

    /// 0, 1, p − 1, p and anything longer would make a secret anyone could guess, or none.
    @Test func aPeerKeyOutsideTwoToPMinusTwoIsRefused() throws {
        let pair = try DiffieHellman()
        let prime = DiffieHellman.prime
        var minusOne = prime
        minusOne[127] -= 1
        var minusTwo = prime
        minusTwo[127] -= 2
        for refused in [[], [0], [1], [0, 0, 1], minusOne, prime, [1] + prime, [UInt8](repeating: 0xff, count: 128)] {
            #expect(throws: KeyringError.self) { try pair.sharedSecret(with: refused) }
        }
        for accepted in [[2], [0, 2], minusTwo] { _ = try pair.sharedSecret(with: accepted) }
    }

    private func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }
}
