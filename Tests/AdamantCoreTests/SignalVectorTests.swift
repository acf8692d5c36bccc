import AdamantCore
import Testing

struct SignalVector: Codable, Sendable, CustomTestStringConvertible {
    struct Payload: Codable, Sendable {
        let token, provider, action: String
        let deviceId: String?
    }
    let name, plaintext, nonce, servicePublicKey, serviceAddress, senderPassphrase, bytes, id: String
    let payload: Payload
    let transaction: JSONValue
    let fee: Int64
    var testDescription: String { name }
}

@Suite("Signal vectors")
struct SignalVectorTests {
    static let vectors: [SignalVector] = Vectors.load("signals.json")

    @Test(arguments: vectors)
    func payloadGivesTheExactPlaintext(_ vector: SignalVector) throws {
        let signal = try PushSignal(
            token: vector.payload.token, provider: #require(PushProvider(rawValue: vector.payload.provider)),
            action: #require(PushAction(rawValue: vector.payload.action)), deviceId: vector.payload.deviceId)
        #expect(signal.plaintext == vector.plaintext)
        #expect(try PushSignal(plaintext: vector.plaintext) == signal)
    }

    /// Building the signal with the vector's timestamp and nonce reproduces its transaction.
    @Test(arguments: vectors)
    func buildsTheSignedTransaction(_ vector: SignalVector) throws {
        let expected = try Transaction(json: Array(vector.transaction.data))
        let service = try NotificationService(
            address: Address(vector.serviceAddress), publicKey: PublicKey(hex: vector.servicePublicKey))
        let sender = try keyPair(passphrase: vector.senderPassphrase)
        let signal = try PushSignal(plaintext: vector.plaintext)
        let built = try Transaction.signal(
            signal, to: service, timestamp: expected.timestamp, signedBy: sender,
            nonce: ChatNonce(bytes: hex(vector.nonce)))
        #expect(Hex.encode(try built.unsignedBytes()) == vector.bytes)
        #expect(built.id?.description == vector.id)
        #expect(built.fee == vector.fee)
        #expect(built.chat?.type == .signal && built.amount == 0)
        #expect(try expected.verify().description == vector.id)
        // The sender can read its own signal back, as reconciliation from chain history needs.
        #expect(try built.decryptMessage(with: sender, partner: service.publicKey) == vector.plaintext)
    }

    @Test func coversProvidersAndActions() {
        for provider in PushProvider.allCases {
            #expect(Self.vectors.contains { $0.payload.provider == provider.rawValue })
        }
        for action in PushAction.allCases {
            #expect(Self.vectors.contains { $0.payload.action == action.rawValue })
        }
        #expect(Self.vectors.contains { $0.payload.deviceId != nil })
    }
}
