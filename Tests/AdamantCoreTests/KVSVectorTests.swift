import AdamantCore
import Foundation
import Testing

/// AIP-3 values made by PyNaCl in scripts/make_vectors.py (fixed nonce and padding).
struct KVSVector: Codable, Sendable, CustomTestStringConvertible {
    let name, passphrase, address, prefix, suffix, payloadJSON, plaintext, nonce, message, value: String
    let payload: JSONValue
    var testDescription: String { name }
}

@Suite("AIP-3 encrypted KVS values")
struct KVSVectorTests {
    static let vectors: [KVSVector] = Vectors.load("kvs.json")

    @Test func coverage() {
        #expect(Self.vectors.count >= 4)
        #expect(Self.vectors.contains { $0.payload["U2279741505997340299"] != nil }, "a contact list")
    }

    @Test(arguments: vectors)
    func opensThePythonValue(_ vector: KVSVector) throws {
        let key = KVSKey(keyPair: try keyPair(passphrase: vector.passphrase))
        #expect(try key.open(vector.value, payloadAs: JSONValue.self) == vector.payload)
    }

    /// With the vector's nonce and padding, sealing gives PyNaCl's bytes exactly.
    @Test(arguments: vectors)
    func sealingReproducesTheVector(_ vector: KVSVector) throws {
        let key = KVSKey(keyPair: try keyPair(passphrase: vector.passphrase))
        let sealed = key.seal(
            payloadJSON: vector.payloadJSON, nonce: try ChatNonce(bytes: hex(vector.nonce)),
            padding: try KVSPadding(prefix: vector.prefix, suffix: vector.suffix))
        #expect(sealed == vector.value)
    }

    @Test(arguments: vectors)
    func anotherAccountCannotOpen(_ vector: KVSVector) throws {
        #expect(throws: KVSCryptoError.authenticationFailed) {
            try KVSKey(keyPair: .random()).open(vector.value, payloadAs: JSONValue.self)
        }
    }

    @Test func randomSealRoundTripsWithFreshNonceAndPadding() throws {
        let key = KVSKey(keyPair: .random())
        let payload = ["U1": ["displayName": "A\u{7}"]]
        let first = try key.seal(payload: payload)
        let second = try key.seal(payload: payload)
        #expect(first != second)
        #expect(try key.open(first, payloadAs: [String: [String: String]].self) == payload)
    }

    @Test func paddingIsLowerCaseLettersOnly() {
        #expect(throws: KVSCryptoError.invalidPadding) { try KVSPadding(prefix: "{", suffix: "") }
        #expect(throws: KVSCryptoError.invalidPadding) { try KVSPadding(prefix: "A", suffix: "") }
        #expect(throws: KVSCryptoError.invalidPadding) {
            try KVSPadding(prefix: "", suffix: String(repeating: "a", count: 65))
        }
        for _ in 0..<50 {
            let padding = KVSPadding.random()
            #expect((1...10).contains(padding.prefix.count) && (1...10).contains(padding.suffix.count))
        }
    }
}

@Suite("AIP-3 opening hostile values")
struct KVSHostileTests {
    static let owner = KeyPair.random()
    static let key = KVSKey(keyPair: owner)

    /// A value whose payload JSON is `text`, valid or not.
    static func raw(_ text: String, nonce: [UInt8]) throws -> String {
        key.seal(payloadJSON: text, nonce: try ChatNonce(bytes: nonce), padding: try KVSPadding(prefix: "", suffix: ""))
    }

    @Test(arguments: [
        ("plain text", KVSCryptoError.notEncrypted),
        ("0x84609a38fedbcd02b657233340e6a8cb09db61a8", .notEncrypted),
        (#"{"message":"zz","nonce":"00"}"#, .notEncrypted),
        (#"{"message":"AB","nonce":"00"}"#, .notEncrypted),
        (#"{"message":5,"nonce":"00"}"#, .notEncrypted),
        (#"{"message":"00"}"#, .notEncrypted),
        (#"[{"message":"00","nonce":"00"}]"#, .notEncrypted),
        (#"{"message":"00","nonce":"00"}"#, .nonceLength(1)),
        (#"{"message":"","nonce":"000000000000000000000000000000000000000000000000"}"#, .authenticationFailed),
        (
            #"{"message":"00112233445566778899aabbccddeeff00","nonce":"000000000000000000000000000000000000000000000000"}"#,
            .authenticationFailed
        ),
    ])
    func malformedEnvelopesAreRefused(_ value: String, _ error: KVSCryptoError) {
        #expect(throws: error) { try Self.key.open(value, payloadAs: JSONValue.self) }
    }

    @Test func oversizedValueIsRefusedBeforeParsing() {
        let value = #"{"message":""# + String(repeating: "0", count: 20_480) + #"","nonce":""}"#
        #expect(throws: KVSCryptoError.tooLarge(value.utf8.count)) {
            try Self.key.open(value, payloadAs: JSONValue.self)
        }
    }

    @Test func deepNestingIsRefusedWithoutRecursion() throws {
        let deepEnvelope = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: KVSCryptoError.notEncrypted) { try Self.key.open(deepEnvelope, payloadAs: JSONValue.self) }
        let deepPayload = try Self.raw(
            String(repeating: "[", count: 3_000) + String(repeating: "]", count: 3_000),
            nonce: [UInt8](repeating: 1, count: 24))
        #expect(throws: KVSCryptoError.tooDeep) { try Self.key.open(deepPayload, payloadAs: JSONValue.self) }
    }

    @Test func bracesInsideStringsDoNotCountAsNesting() throws {
        let brackets = String(repeating: "[{", count: 100)
        let value = try Self.raw(#"{"a":"\#(brackets)"}"#, nonce: Array(repeating: 2, count: 24))
        #expect(try Self.key.open(value, payloadAs: [String: String].self)["a"] == brackets)
    }

    @Test func payloadOfTheWrongShapeIsAMismatch() throws {
        let value = try Self.raw(#""a string""#, nonce: Array(repeating: 3, count: 24))
        #expect(throws: KVSCryptoError.payloadMismatch) { try Self.key.open(value, payloadAs: [String: String].self) }
        #expect(try Self.key.open(value, payloadAs: String.self) == "a string")
    }

    @Test func invalidJSONPayloadIsAMismatch() throws {
        let value = try Self.raw("{not json", nonce: Array(repeating: 4, count: 24))
        #expect(throws: KVSCryptoError.payloadMismatch) { try Self.key.open(value, payloadAs: JSONValue.self) }
    }
}
