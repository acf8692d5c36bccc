import AdamantCore
import Testing

/// Any single flipped bit in a signed field is caught by verification.
@Suite("Tampering")
struct TamperTests {
    static let sender = KeyPair.random()
    static let recipient = KeyPair.random()

    static func signedChat() throws -> Transaction {
        let asset = try ChatKey(secretKey: sender.secretKey, partner: recipient.publicKey).seal(
            "meet at 10, bring the keys")
        return try Transaction.chat(
            asset, amount: 12_345, to: recipient.address, timestamp: 238_000_000, signedBy: sender)
    }

    enum Field: String, CaseIterable, Sendable {
        case signature, message, nonce, amount, recipient, timestamp, senderKey
    }

    @Test(arguments: Field.allCases)
    func everyFlippedBitIsCaught(_ field: Field) throws {
        let original = try Self.signedChat()
        try original.verify()
        let width = try bitWidth(of: field, in: original)
        for bit in 0..<width {
            var tampered = original
            try flip(bit, of: field, in: &tampered)
            #expect(throws: TransactionError.self, "bit \(bit) of \(field)") { try tampered.verify() }
        }
    }

    /// A node that keeps the signature but rewrites the id is caught too.
    @Test func aReportedIDThatDoesNotMatchIsCaught() throws {
        var transaction = try Self.signedChat()
        transaction.id = TransactionID(number: transaction.id!.number ^ 1)
        #expect(throws: TransactionError.idMismatch(reported: transaction.id!, computed: try transaction.computedID()))
        {
            try transaction.verify()
        }
    }

    /// A second signature is not signed over but is in the id (docs/protocol.md §4.4): verification
    /// returns the id with it, and catches a node that reports the id without it.
    @Test func theIDCoversASecondSignature() throws {
        var transaction = try Self.signedChat()
        let withoutIt = transaction.id!
        transaction.signSignature = [UInt8](repeating: 0xA5, count: 64)
        transaction.id = try transaction.computedID()
        #expect(transaction.id != withoutIt)
        #expect(try transaction.verify() == transaction.id)
        transaction.id = withoutIt
        #expect(throws: TransactionError.idMismatch(reported: withoutIt, computed: try transaction.computedID())) {
            try transaction.verify()
        }
    }

    @Test func aClaimedSenderThatIsNotTheKeyIsCaught() throws {
        var transaction = try Self.signedChat()
        transaction.senderId = Self.recipient.address
        #expect(throws: TransactionError.senderMismatch) { try transaction.verify() }
    }

    /// Tampering with the ciphertext is also caught by the box's authenticator.
    @Test func aTamperedMessageDoesNotDecrypt() throws {
        var transaction = try Self.signedChat()
        transaction.chat!.message[5] ^= 0x01
        #expect(throws: ChatCryptoError.authenticationFailed) {
            try transaction.decryptMessage(with: Self.recipient, partner: Self.sender.publicKey)
        }
    }

    private func bitWidth(of field: Field, in transaction: Transaction) throws -> Int {
        switch field {
        case .signature: 512
        case .message: try #require(transaction.chat).message.count * 8
        case .nonce: 24 * 8
        case .amount, .recipient: 64
        case .timestamp: 32
        case .senderKey: 256
        }
    }

    private func flip(_ bit: Int, of field: Field, in transaction: inout Transaction) throws {
        let mask = UInt8(1) << UInt8(bit % 8)
        switch field {
        case .signature: transaction.signature[bit / 8] ^= mask
        case .message: transaction.chat!.message[bit / 8] ^= mask
        case .nonce: transaction.chat!.nonce[bit / 8] ^= mask
        case .amount: transaction.amount ^= Int64(1) << Int64(bit)
        case .recipient:
            transaction.recipientId = Address(number: transaction.recipientId!.number ^ (UInt64(1) << UInt64(bit)))
        case .timestamp: transaction.timestamp ^= Int32(bitPattern: UInt32(1) << UInt32(bit))
        case .senderKey:
            var bytes = transaction.senderPublicKey.bytes
            bytes[bit / 8] ^= mask
            transaction.senderPublicKey = try PublicKey(bytes: bytes)
        }
    }
}
