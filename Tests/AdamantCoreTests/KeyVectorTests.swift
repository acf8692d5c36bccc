import AdamantCore
import Testing

struct KeyVector: Codable, Sendable, CustomTestStringConvertible {
    let passphrase, seed, publicKey, privateKey, address: String
    var testDescription: String { address }
}

@Suite("Key vectors")
struct KeyVectorTests {
    static let vectors: [KeyVector] = Vectors.load("keys.json")

    @Test(arguments: vectors)
    func passphraseDerivesSeedKeysAndAddress(_ vector: KeyVector) throws {
        let passphrase = try Passphrase(validating: vector.passphrase)
        passphrase.withSeed { #expect(Hex.encode($0) == vector.seed) }
        let keys = KeyPair(passphrase: passphrase)
        #expect(keys.publicKey.hex == vector.publicKey)
        keys.secretKey.withUnsafeBytes { #expect(Hex.encode($0) == vector.privateKey) }
        #expect(keys.address.description == vector.address)
        #expect(try Address(vector.address) == keys.address)
    }

    @Test(arguments: vectors)
    func rawSeedAndSecretKeyGiveTheSameAccount(_ vector: KeyVector) throws {
        var seed = hex(vector.privateKey).prefix(32).map { $0 }
        let fromSeed = try KeyPair(seed: &seed)
        #expect(seed.allSatisfy { $0 == 0 }, "the caller's seed copy is wiped")
        var secret = hex(vector.privateKey)
        let fromSecret = try KeyPair(secretKey: &secret)
        #expect(fromSeed.publicKey.hex == vector.publicKey)
        #expect(fromSecret.address.description == vector.address)
        #expect(try PublicKey(hex: vector.publicKey).address.description == vector.address)
    }

    @Test func count() { #expect(Self.vectors.count >= 25) }
}
