/// Push providers the services understand (docs/protocol.md §7.2); adamant-ns spells them
/// `FCM` and `APNS`.
public enum PushProvider: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's production push service.
    case apns
    /// Apple's development push service, for builds signed for development.
    case apnsSandbox = "apns-sandbox"
    /// Firebase Cloud Messaging.
    case fcm
}

/// What a signal asks of the service.
public enum PushAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// Register the token, or unregister it.
    case add, remove
}

/// The plaintext of a push registration signal: `{"token","provider","action"}` and an
/// optional `deviceId`, validated field by field.
public struct PushSignal: Sendable, Hashable {
    /// The device's push token, as the provider gave it.
    public let token: String
    /// Which push service the token belongs to.
    public let provider: PushProvider
    /// Register or unregister.
    public let action: PushAction
    /// The device the signal registers with adamant-ns (the PWA sends its Firebase Installation
    /// ID); nil in signals to the ANS.
    public let deviceId: String?

    /// A signal whose token fits its provider (`validate(token:provider:)`) and whose device id, if
    /// any, is 1 to 128 characters of letters, digits, `.`, `:`, `_` and `-`.
    public init(token: String, provider: PushProvider, action: PushAction, deviceId: String? = nil) throws(SignalError)
    {
        try Self.validate(token: token, provider: provider)
        if let deviceId {
            guard (1...128).contains(deviceId.utf8.count),
                deviceId.utf8.allSatisfy({ Self.isTokenCharacter($0) || $0 == UInt8(ascii: ".") })
            else { throw .invalidDeviceID }
        }
        self.token = token
        self.provider = provider
        self.action = action
        self.deviceId = deviceId
    }

    /// A signal whose fields were validated when it was made and kept authenticated since (a
    /// store's sealed copy): no second check.
    package init(validated token: String, provider: PushProvider, action: PushAction, deviceId: String?) {
        self.token = token
        self.provider = provider
        self.action = action
        self.deviceId = deviceId
    }

    /// APNs tokens: lowercase hex of 16–100 bytes (Apple's are 32 today, and may grow).
    /// FCM tokens: 20–4096 characters of `A–Z a–z 0–9 : _ -`.
    public static func validate(token: String, provider: PushProvider) throws(SignalError) {
        switch provider {
        case .apns, .apnsSandbox:
            guard Hex.decode(token) != nil, (32...200).contains(token.utf8.count) else { throw .invalidAPNsToken }
        case .fcm:
            guard (20...4096).contains(token.utf8.count), token.utf8.allSatisfy(isTokenCharacter) else {
                throw .invalidFCMToken
            }
        }
    }

    private static func isTokenCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// The exact JSON that is encrypted: keys in the order token, provider, action, deviceId,
    /// no whitespace. Every field's charset needs no escaping.
    public var plaintext: String {
        var json = #"{"token":"\#(token)","provider":"\#(provider.rawValue)","action":"\#(action.rawValue)""#
        if let deviceId { json += #","deviceId":"\#(deviceId)""# }
        return json + "}"
    }

    /// Reads a signal's plaintext as the services do: any key order and whitespace, `action`
    /// and `provider` case-insensitive. Unlike the C# service, a missing action is an error.
    public init(plaintext: String) throws(SignalError) {
        struct Payload: Decodable {
            var token: String
            var provider: String
            var action: String
            var deviceId: String?
        }
        guard let payload = try? JSONCoding.decode(Payload.self, from: plaintext.utf8) else { throw .notASignal }
        guard let provider = PushProvider(rawValue: payload.provider.lowercased()) else { throw .unknownProvider }
        guard let action = PushAction(rawValue: payload.action.lowercased()) else { throw .unknownAction }
        try self.init(token: payload.token, provider: provider, action: action, deviceId: payload.deviceId)
    }
}

/// A push service's ADAMANT identity and kind. Its public key must hash to its address: a
/// signal encrypted to any other key would be readable by someone else.
public struct NotificationService: Sendable, Hashable {
    /// The service's account, which signals are sent to.
    public let address: Address
    /// The key signals are encrypted to.
    public let publicKey: PublicKey
    /// Whose grammar and rules its signals follow.
    public let kind: ServiceKind

    /// A service whose `publicKey` hashes to `address`; anything else is refused.
    public init(address: Address, publicKey: PublicKey, kind: ServiceKind = .ans) throws(SignalError) {
        guard publicKey.address == address else {
            throw .serviceKeyMismatch(expected: address, derived: publicKey.address)
        }
        self.address = address
        self.publicKey = publicKey
        self.kind = kind
    }

    /// The ANS the iOS app registers with (docs/protocol.md §7.3).
    public static let adamantIOS = try! NotificationService(
        address: Address("U10629337621822775991"),
        publicKey: PublicKey(hex: "188b24bd116a556ac8ba905bbbdaa16e237dfb14269f5a4f9a26be77537d977c"))

    /// adamant-ns, which the web and Android apps register with (docs/node-api.md §4.2).
    public static let adamantNS = try! NotificationService(
        address: Address("U922832474468487910"),
        publicKey: PublicKey(hex: "e62976484f30862e26765ad98a5835fbccc43a50de59c56bd2e0b4989ee2e0af"), kind: .ns)

    /// The same identity read with another kind's grammar and rules.
    public func with(kind: ServiceKind) -> NotificationService {
        try! NotificationService(address: address, publicKey: publicKey, kind: kind)
    }

    /// Whether this service can carry `signal`: adamant-ns needs a device id and takes no Apple
    /// sandbox token.
    public func check(_ signal: PushSignal) throws(SignalError) {
        guard kind == .ns else { return }
        guard signal.deviceId != nil else { throw .deviceIDRequired }
        guard kind.accepts(signal.provider) else { throw .providerNotTaken(signal.provider, kind) }
    }
}

extension Transaction {
    /// A signed signal (type 8, chat type 3, amount 0) carrying `signal` to `service`, in the
    /// service's grammar.
    public static func signal(
        _ signal: PushSignal, to service: NotificationService, timestamp: Int32, timestampMs: Int64? = nil,
        signedBy keyPair: KeyPair, nonce: ChatNonce = .random()
    ) throws -> Transaction {
        try service.check(signal)
        let asset = try ChatKey(secretKey: keyPair.secretKey, partner: service.publicKey)
            .seal(service.kind.plaintext(signal), type: .signal, nonce: nonce)
        return try chat(asset, to: service.address, timestamp: timestamp, timestampMs: timestampMs, signedBy: keyPair)
    }
}

/// Why a signal cannot be made or read, or a service's key is not the service's.
public enum SignalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalidAPNsToken`, `invalidFCMToken`: a token that does not fit its provider.
    /// `invalidDeviceID`: a device id of other characters, or too long. `notASignal`: a message
    /// that is not signal JSON. `unknownProvider`, `unknownAction`: a value not in the lists.
    case invalidAPNsToken, invalidFCMToken, invalidDeviceID, notASignal, unknownProvider, unknownAction
    /// The public key given for the service hashes to `derived`, not to its address `expected`.
    case serviceKeyMismatch(expected: Address, derived: Address)
    /// adamant-ns keys every registration by a device id, and the signal has none.
    case deviceIDRequired
    /// The service has no such provider (adamant-ns and the Apple sandbox).
    case providerNotTaken(PushProvider, ServiceKind)

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .invalidAPNsToken: "invalidAPNsToken"
        case .invalidFCMToken: "invalidFCMToken"
        case .invalidDeviceID: "invalidDeviceID"
        case .notASignal: "notASignal"
        case .unknownProvider: "unknownProvider"
        case .unknownAction: "unknownAction"
        case .serviceKeyMismatch: "serviceKeyMismatch"
        case .deviceIDRequired: "deviceIDRequired"
        case .providerNotTaken: "providerNotTaken"
        }
    }

    /// What a valid value looks like.
    public var description: String {
        switch self {
        case .invalidAPNsToken: "an APNs token is lowercase hex, 32 to 200 characters (an even number)"
        case .invalidFCMToken: "an FCM token is 20 to 4096 characters of letters, digits, ':', '_' and '-'"
        case .invalidDeviceID: "a device id is 1 to 128 characters of letters, digits, '.', ':', '_' and '-'"
        case .notASignal: "the message is not a push signal {token, provider, action}"
        case .unknownProvider: "the provider must be apns, apns-sandbox or fcm"
        case .unknownAction: "the action must be add or remove"
        case .serviceKeyMismatch(let expected, let derived):
            "the service public key belongs to \(derived), not \(expected): refusing to encrypt to it"
        case .deviceIDRequired: "adamant-ns registers devices: the signal needs a device id"
        case .providerNotTaken(let provider, let kind):
            "the \(kind.rawValue) service takes no \(provider.rawValue) token (adamant-ns knows only fcm and apns)"
        }
    }
}
