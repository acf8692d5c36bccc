import AdamantCore
import Testing

@Suite("Local sealing")
struct LocalSealingTests {
    static let alice = KeyPair(
        passphrase: try! Passphrase(
            validating: "wrap track hamster grocery casual talk theory half artist toast art essence"))
    static let bob = KeyPair(passphrase: Passphrase(unvalidated: "another account entirely"))
    let token = Array("0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0".utf8)

    @Test func sealsAndOpensForTheSameAccountAndRowOnly() throws {
        let key = LocalSealingKey(keyPair: Self.alice, purpose: "outbox")
        let sealed = key.seal(token, context: Array("row 1".utf8))
        #expect(sealed.count == 24 + token.count + 16)
        #expect(try key.open(sealed, context: Array("row 1".utf8)) == token)
        #expect(throws: LocalSealingError.unreadable) { try key.open(sealed, context: Array("row 2".utf8)) }
        #expect(throws: LocalSealingError.unreadable) {
            try LocalSealingKey(keyPair: Self.bob, purpose: "outbox").open(sealed, context: Array("row 1".utf8))
        }
        #expect(throws: LocalSealingError.unreadable) {
            try LocalSealingKey(keyPair: Self.alice, purpose: "other").open(sealed, context: Array("row 1".utf8))
        }
    }

    @Test func everyFlippedBitIsRefused() {
        let key = LocalSealingKey(keyPair: Self.alice, purpose: "outbox")
        let sealed = key.seal(token, context: [])
        for bit in 0..<(sealed.count * 8) {
            var altered = sealed
            altered[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(throws: LocalSealingError.unreadable) { try key.open(altered, context: []) }
        }
        #expect(throws: LocalSealingError.unreadable) { try key.open(Array(sealed.prefix(39)), context: []) }
        #expect(throws: LocalSealingError.unreadable) { try key.open([], context: []) }
    }

    @Test func sealingTheSameValueTwiceGivesDifferentBytes() {
        let key = LocalSealingKey(keyPair: Self.alice, purpose: "outbox")
        #expect(key.seal(token, context: []) != key.seal(token, context: []))
        #expect(!key.seal(token, context: []).contains(subsequence: token))
    }

    @Test func tagsAreStablePerAccountAndPurposeAndOtherwiseUnrelated() {
        let alice = LocalSealingKey(keyPair: Self.alice, purpose: "outbox")
        #expect(alice.tag(token) == LocalSealingKey(keyPair: Self.alice, purpose: "outbox").tag(token))
        #expect(alice.tag(token).count == 32)
        #expect(alice.tag(token) != alice.tag(token.dropLast() + [0x31]))
        #expect(alice.tag(token) != LocalSealingKey(keyPair: Self.bob, purpose: "outbox").tag(token))
        #expect(alice.tag(token) != LocalSealingKey(keyPair: Self.alice, purpose: "cache").tag(token))
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
