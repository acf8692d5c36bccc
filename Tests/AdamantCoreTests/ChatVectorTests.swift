import AdamantCore
import Testing

struct ChatVector: Codable, Sendable, CustomTestStringConvertible {
    let name, plaintext, senderPublicKey, recipientPublicKey, nonce, message: String
    let senderPassphrase, senderSecretKey, recipientPassphrase: String?
    var testDescription: String { name }

    func sender() throws -> KeyPair {
        if let senderPassphrase { return try keyPair(passphrase: senderPassphrase) }
        var secret = hex(senderSecretKey!)
        return try KeyPair(secretKey: &secret)
    }
}

@Suite("Chat vectors")
struct ChatVectorTests {
    static let vectors: [ChatVector] = Vectors.load("chat.json")

    /// With the vector's nonce, encryption is deterministic and must give its exact bytes.
    @Test(arguments: vectors)
    func encryptsToTheVector(_ vector: ChatVector) throws {
        let sender = try vector.sender()
        #expect(sender.publicKey.hex == vector.senderPublicKey)
        let key = try ChatKey(secretKey: sender.secretKey, partner: PublicKey(hex: vector.recipientPublicKey))
        let asset = try key.seal(vector.plaintext, nonce: ChatNonce(bytes: hex(vector.nonce)))
        #expect(Hex.encode(asset.message) == vector.message)
        #expect(Hex.encode(asset.nonce) == vector.nonce)
    }

    @Test(arguments: vectors)
    func senderAndRecipientBothDecrypt(_ vector: ChatVector) throws {
        let asset = ChatAsset(message: hex(vector.message), nonce: hex(vector.nonce), type: .message)
        let sender = try vector.sender()
        let fromSender = try ChatKey(secretKey: sender.secretKey, partner: PublicKey(hex: vector.recipientPublicKey))
        #expect(try fromSender.open(asset) == vector.plaintext)
        if let recipientPassphrase = vector.recipientPassphrase {
            let recipient = try keyPair(passphrase: recipientPassphrase)
            #expect(recipient.publicKey.hex == vector.recipientPublicKey)
            #expect(
                try ChatKey(secretKey: recipient.secretKey, partner: sender.publicKey).open(asset) == vector.plaintext)
        }
    }

    @Test func includesTheDocsCommonVector() {
        #expect(
            Self.vectors.contains {
                $0.plaintext == "common" && $0.message == "09af1ce7e5ed484ddca3c6d1410cbf4f793ea19210e7"
            })
        #expect(Self.vectors.count >= 21)
    }

    /// A nonce of the wrong length is a thrown error where it is made (it once trapped in seal).
    @Test(arguments: [0, 23, 25, 1024])
    func aNonceOfTheWrongLengthIsAnError(_ length: Int) {
        #expect(throws: ChatCryptoError.nonceLength(length)) {
            try ChatNonce(bytes: [UInt8](repeating: 7, count: length))
        }
    }

    @Test func randomNoncesDiffer() {
        #expect(ChatNonce.random() != ChatNonce.random())
        #expect(ChatNonce.random().bytes.count == 24)
    }
}
