package import AdamantBus

/// The Secret Service's names on the bus.
package enum SecretService {
    package static let name = "org.freedesktop.secrets"
    package static let path = "/org/freedesktop/secrets"
    static let interface = "org.freedesktop.Secret.Service"
    static let collection = "org.freedesktop.Secret.Collection"
    static let item = "org.freedesktop.Secret.Item"
    static let prompt = "org.freedesktop.Secret.Prompt"
    /// A prompt path that means no prompt is needed.
    static let noPrompt = "/"
    static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
}

extension SessionBus {
    /// Calls `member` of the Secret Service, bounded by the bus's call timeout, and reads its
    /// answer with `read`: an error answer, no answer and a malformed one each the
    /// `KeyringError` that says so. `onItem`: the call is to an item, whose interfaces every
    /// item has, so an unknown method means the item is gone (gnome-keyring's words for it).
    package func secretCall<Answer: Sendable>(
        _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue], onItem: Bool = false,
        within timeout: Duration = SessionBus.callTimeout,
        read: @escaping @Sendable (BusReader) throws(BusError) -> Answer
    ) async throws(KeyringError) -> Answer {
        let answer: Result<Answer, KeyringError>
        do {
            answer = try await secretAnswer(path, interface, member, arguments, within: timeout, read: read)
        } catch {
            throw KeyringError(error, onItem: onItem, waited: timeout)
        }
        return try answer.get()
    }

    /// As `secretCall`, but an error answer is thrown as the bus's, for a caller that tells
    /// one error name from another; a malformed answer is the result's failure.
    func secretAnswer<Answer: Sendable>(
        _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue],
        within timeout: Duration = SessionBus.callTimeout,
        read: @escaping @Sendable (BusReader) throws(BusError) -> Answer
    ) async throws(BusError) -> Result<Answer, KeyringError> {
        try await call(SecretService.name, path, interface, member, arguments, timeout: timeout) { reader in
            Result { () throws(BusError) in try read(reader) }.mapError {
                .malformedAnswer("\(member): \($0.description)")
            }
        }
    }
}

extension KeyringError {
    /// What a failed call means for the keyring; the bus's words (which end with the error's
    /// name) are the detail. `onItem`: as `secretCall`'s; `waited`: how long the call was
    /// given.
    init(_ error: BusError, onItem: Bool = false, waited: Duration = SessionBus.callTimeout) {
        let detail = error.description
        switch error.name {
        case "org.freedesktop.Secret.Error.IsLocked":
            self = .locked(detail)
        case "org.freedesktop.Secret.Error.NoSuchObject", "org.freedesktop.DBus.Error.UnknownObject":
            self = .noSuchItem(detail)
        case "org.freedesktop.DBus.Error.UnknownMethod" where onItem:
            self = .noSuchItem(detail)
        case "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.NoReply", "System.Error.ETIMEDOUT":
            self = .noSecretService(
                "no answer within \(Int((waited / .seconds(1)).rounded(.up))) s (\(detail)): the service is hung or slow, or the bus is starting one that never comes up"
            )
        case nil:
            // Failed here, not answered: the connection is gone.
            self = .noSessionBus(detail)
        default:
            self = error.isServiceUnknown || !error.isRefusal ? .noSecretService(detail) : .refused(detail)
        }
    }
}
