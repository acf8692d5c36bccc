import AdamantCore
import Testing

struct SignalVector: Codable, Sendable, CustomTestStringConvertible {
    struct Payload: Codable, Sendable {
        let token, provider, action: String
        let deviceId: String?
    }
    let name, plaintext, nonce, servicePublicKey, serviceAddress, senderPassphrase, bytes, id: String
    /// The service's grammar, `ns` for adamant-ns; absent for the ANS, which the first vectors
    /// were all written for.
    let service: String?
    let payload: Payload
    let transaction: JSONValue
    let fee: Int64
    var testDescription: String { name }

    var kind: ServiceKind { service.flatMap(ServiceKind.init(rawValue:)) ?? .ans }
}

@Suite("Signal vectors")
struct SignalVectorTests {
    static let vectors: [SignalVector] = Vectors.load("signals.json")

    @Test func everyServiceIsKnown() {
        for vector in Self.vectors { #expect(vector.service == nil || vector.service == "ns", "\(vector.name)") }
    }

    /// The payload is adm-push's signal; the plaintext is that signal in the service's grammar.
    @Test(arguments: vectors)
    func payloadGivesTheExactPlaintext(_ vector: SignalVector) throws {
        let signal = try PushSignal(
            token: vector.payload.token, provider: #require(PushProvider(rawValue: vector.payload.provider)),
            action: #require(PushAction(rawValue: vector.payload.action)), deviceId: vector.payload.deviceId)
        switch vector.kind {
        case .ans:
            #expect(signal.plaintext == vector.plaintext)
            #expect(try PushSignal(plaintext: vector.plaintext) == signal)
        case .ns:
            #expect(ServiceKind.ns.plaintext(signal) == vector.plaintext)
            #expect(try ServiceKind.ns.signal(plaintext: vector.plaintext) == signal)
        }
        #expect(try vector.kind.signal(plaintext: vector.plaintext) == signal)
    }

    /// Building the signal with the vector's timestamp and nonce reproduces its transaction.
    @Test(arguments: vectors)
    func buildsTheSignedTransaction(_ vector: SignalVector) throws {
        let expected = try Transaction(json: Array(vector.transaction.data))
        let service = try NotificationService(
            address: Address(vector.serviceAddress), publicKey: PublicKey(hex: vector.servicePublicKey),
            kind: vector.kind)
        let sender = try keyPair(passphrase: vector.senderPassphrase)
        let signal = try vector.kind.signal(plaintext: vector.plaintext)
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

    /// adamant-ns vectors for both providers it takes and both actions, to its mainnet identity
    /// and to another, with the longest device id and ids as adm-push makes them.
    @Test func coversAdamantNS() {
        let ns = Self.vectors.filter { $0.kind == .ns }
        for provider in PushProvider.allCases where ServiceKind.ns.accepts(provider) {
            for action in PushAction.allCases {
                #expect(
                    ns.contains { $0.payload.provider == provider.rawValue && $0.payload.action == action.rawValue })
            }
        }
        let standard = NotificationService.adamantNS
        #expect(
            ns.contains {
                $0.serviceAddress == standard.address.description && $0.servicePublicKey == standard.publicKey.hex
            })
        #expect(ns.contains { $0.serviceAddress != standard.address.description })
        #expect(ns.contains { $0.payload.deviceId?.utf8.count == 128 })
        let made = PushSignal.randomDeviceID()
        #expect(
            ns.contains {
                $0.payload.deviceId.map { $0.utf8.count == made.utf8.count && Hex.decode($0) != nil } == true
            })
    }

    /// The same signal in the ANS grammar is no signal to adamant-ns (its providers are
    /// lowercase), so the grammar must follow the service.
    @Test(arguments: vectors.filter { $0.kind == .ns })
    func theANSGrammarIsNotAdamantNS(_ vector: SignalVector) throws {
        let signal = try ServiceKind.ns.signal(plaintext: vector.plaintext)
        #expect(ServiceKind.ans.plaintext(signal) != vector.plaintext)
        #expect(throws: SignalError.self) { try ServiceKind.ns.signal(plaintext: signal.plaintext) }
    }
}
