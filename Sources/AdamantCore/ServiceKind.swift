/// Which notification service a signal is for. Each reads its own grammar and applies signals
/// by its own rules (docs/node-api.md §4.1 and §4.2), so the kind decides the plaintext, what
/// a registration is keyed by, and what the scheduler must keep apart.
public enum ServiceKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The iOS app's C# ANS: `{token, provider, action}`, a registration per (token, address).
    case ans
    /// adamant-ns, the web and Android apps' service: `{deviceId, token, provider, action}`, a
    /// device per id, whoever sends its signals.
    case ns

    /// The service's usual identity on the ADAMANT mainnet.
    public var standardService: NotificationService {
        switch self {
        case .ans: .adamantIOS
        case .ns: .adamantNS
        }
    }

    /// What one registration is keyed by: the token for the ANS, the device for adamant-ns.
    public func key(of signal: PushSignal) -> String {
        switch self {
        case .ans: signal.token
        case .ns: signal.deviceId ?? ""
        }
    }

    /// The providers the service takes: adamant-ns has no Apple sandbox.
    public func accepts(_ provider: PushProvider) -> Bool { self == .ans || provider != .apnsSandbox }

    /// The exact JSON encrypted for this service. For adamant-ns the signal must carry a device
    /// id and a provider it takes (`accepts`); `signal(_:to:)` checks both before this is asked.
    public func plaintext(_ signal: PushSignal) -> String {
        switch self {
        case .ans:
            return signal.plaintext
        case .ns:
            let provider = signal.provider == .fcm ? "FCM" : "APNS"
            return
                #"{"deviceId":"\#(signal.deviceId ?? "")","token":"\#(signal.token)","provider":"\#(provider)","action":"\#(signal.action.rawValue)"}"#
        }
    }

    /// Reads a signal's plaintext as this service does. The ANS reads any case
    /// (`PushSignal(plaintext:)`); adamant-ns's schema wants all four fields as strings, the
    /// provider exactly `FCM` or `APNS` and the action exactly `add` or `remove`, and drops
    /// anything else, so such a signal is not one at all.
    public func signal(plaintext: String) throws(SignalError) -> PushSignal {
        switch self {
        case .ans:
            return try PushSignal(plaintext: plaintext)
        case .ns:
            struct Payload: Decodable {
                var deviceId: String
                var token: String
                var provider: String
                var action: String
            }
            guard let payload = try? JSONCoding.decode(Payload.self, from: plaintext.utf8) else { throw .notASignal }
            let provider: PushProvider
            switch payload.provider {
            case "FCM": provider = .fcm
            case "APNS": provider = .apns
            default: throw .unknownProvider
            }
            guard let action = PushAction(rawValue: payload.action) else { throw .unknownAction }
            return try PushSignal(token: payload.token, provider: provider, action: action, deviceId: payload.deviceId)
        }
    }
}

extension PushSignal {
    /// A new device id for adamant-ns: 128 random bits as 32 hex digits. The service deletes a
    /// device for whoever names it, so it must be unguessable.
    public static func randomDeviceID() -> String { Hex.encode(Sodium.randomBytes(16)) }
}
