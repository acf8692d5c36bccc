public import AdamantCore
public import AdamantNodes
public import AdamantStore

/// What can go wrong with the outbox, each with what to do about it.
public enum OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The home, or a store in it, cannot be used (the outbox's own, or the log beside it).
    case store(StoreError)
    /// The service's public key is not a key a signal can be encrypted to.
    case unusableServiceKey
    /// The token, provider or device id cannot make a signal.
    case invalidSignal(SignalError)
    /// The chain could not be read from any node.
    case network(NodeError)
    /// adamant-ns: the device now holds another token, and a remove would delete the device
    /// with it; nothing was recorded.
    case tokenReplaced

    /// What went wrong and what to do, naming the file.
    public var description: String {
        switch self {
        case .store(let error): error.description
        case .unusableServiceKey: "the service's public key cannot be used for encryption: check --service-public-key"
        case .invalidSignal(let error): error.description
        case .network(let error): error.description
        case .tokenReplaced:
            "nothing to send: a newer token replaced this one on the device, and adamant-ns would delete the device with it"
        }
    }
}
