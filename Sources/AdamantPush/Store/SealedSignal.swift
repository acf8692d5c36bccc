internal import AdamantCore

/// A signal's private fields as sealed at rest: `action ␟ provider ␟ token ␟ deviceId`. Unit
/// separators cannot occur in any validated field, and this reads back 10,000 signals far faster
/// than JSON would.
enum SealedSignal {
    private static let separator = UInt8(0x1f)

    static func seal(_ signal: PushSignal, key: LocalSealingKey, context: [UInt8]) -> [UInt8] {
        let fields = [signal.action.rawValue, signal.provider.rawValue, signal.token, signal.deviceId ?? ""]
        var bytes = Array(fields.joined(separator: "\u{1f}").utf8)
        defer { SecureMemory.zero(&bytes) }
        return key.seal(bytes, context: context)
    }

    /// nil for anything that does not open: a damaged or foreign row. What opens was sealed
    /// here after validation and authenticated since, so it is not validated again (10,000
    /// kept signals are read on every run).
    static func open(_ sealed: [UInt8], key: LocalSealingKey, context: [UInt8]) -> PushSignal? {
        guard var bytes = try? key.open(sealed, context: context) else { return nil }
        defer { SecureMemory.zero(&bytes) }
        let fields = bytes.split(separator: separator, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard fields.count == 4, let action = PushAction(rawValue: fields[0]),
            let provider = PushProvider(rawValue: fields[1]), !fields[2].isEmpty
        else { return nil }
        return PushSignal(
            validated: fields[2], provider: provider, action: action, deviceId: fields[3].isEmpty ? nil : fields[3])
    }
}
