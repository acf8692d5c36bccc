public import AdamantCore
public import AdamantNodes

/// What one fetch ends with. There is always a notification to show: the real one, or the
/// generic "New message" / "New transfer" with the reason in `failure`.
public struct FetchResult: Sendable {
    /// The transaction the push named, whether or not it was found.
    public var id: TransactionID
    /// The transaction, verified; nil when it was not found or failed verification.
    public var transaction: Transaction?
    /// What to show: the transaction rendered, or the generic text when `failure` is set.
    public var notification: RenderedNotification
    /// The decrypted message, for chats that could be read.
    public var text: String?
    /// The other party: the chat a notification belongs to.
    public var thread: Address?
    /// Shown before (the same push delivered twice, or seen by `watch`).
    public var duplicate: Bool = false
    /// Why the generic text is shown; nil when the notification is the transaction's own.
    public var failure: FetchFailure?

    /// The notification is the generic one.
    public var isFallback: Bool { failure != nil }

    /// A result as given: a notification this library did not fetch (one to show through the
    /// same outputs, a test's).
    public init(
        id: TransactionID, transaction: Transaction? = nil, notification: RenderedNotification, text: String? = nil,
        thread: Address? = nil,
        duplicate: Bool = false, failure: FetchFailure? = nil
    ) {
        (self.id, self.transaction, self.notification, self.text, self.thread) = (
            id, transaction, notification, text, thread
        )
        (self.duplicate, self.failure) = (duplicate, failure)
    }
}

/// Why a fetch shows the generic text instead of the transaction.
public enum FetchFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The push was for another account of this device.
    case wrongAccount(pushedFor: Address, account: Address)
    /// No node had it by the deadline, or no node could be asked: the last nodes' error, nil
    /// when every node answered that it has no such transaction.
    case notFound(NodeError?)
    /// The fetch was stopped (its task cancelled) before the transaction was found.
    case cancelled
    /// No node was usable (offline, wrong network, out of sync, or the proxy failed): nobody
    /// could be asked.
    case noUsableNode(NodeError)
    /// Nodes answered, but no answer verified; or a carried transaction that does not verify.
    case unverifiable(Unverifiable)
    /// Verified, but this account is neither its sender nor its recipient.
    case notOurs(sender: Address, recipient: Address?)
    /// Ours and verified, but its message cannot be read.
    case unreadable(Unreadable)

    /// Why the transaction cannot be verified.
    public enum Unverifiable: Error, Sendable, Hashable, CustomStringConvertible {
        /// The carried transaction fails its own checks: signature, sender, fields.
        case transaction(TransactionError)
        /// It carries no id, and its bytes give none.
        case noID(TransactionError)
        /// Its bytes give another id than the push names.
        case otherID(computed: TransactionID, named: TransactionID)
        /// Nodes answered, and every answer failed verification.
        case nodes(NodeError)

        /// The reason, as the rest of a sentence.
        public var description: String {
            switch self {
            case .transaction(let error): error.description
            case .noID(let error): "it has no id, and none can be computed (\(error))"
            case .otherID(let computed, let named): "its id is \(computed), the push names \(named)"
            case .nodes(let error): error.description
            }
        }
    }

    /// Why a message of this account's cannot be read.
    public enum Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
        /// The box does not open, or the partner's key cannot be used.
        case crypto(ChatCryptoError)
        /// A message this account sent names no recipient, whose key would open it.
        case noRecipient
        /// No node knows the recipient's public key: the recipient never sent a transaction.
        case unknownKey(Address)
        /// The recipient's key was asked of the nodes, and none gave it.
        case nodes(NodeError)

        /// The reason, as the rest of a sentence.
        public var description: String {
            switch self {
            case .crypto(let error): error.description
            case .noRecipient: "the transaction has no recipient"
            case .unknownKey(let address): "no node knows the public key of \(address)"
            case .nodes(let error): error.description
            }
        }
    }

    /// The reason in a sentence, with what to do where there is something to do.
    public var description: String {
        switch self {
        case .wrongAccount(let pushedFor, let account):
            "the push is for \(pushedFor), not for this passphrase's account \(account): fetch it with that account's passphrase"
        case .notFound(let error):
            "the transaction was not found by the deadline (\(error?.description ?? "no node has it yet"))"
        case .cancelled: "the fetch was stopped before the transaction was found"
        case .noUsableNode(let error): error.description
        case .unverifiable(let reason): "the transaction cannot be verified: \(reason)"
        case .notOurs(let sender, let recipient):
            "the transaction is between \(sender) and \(recipient.map(\.description) ?? "nobody"), not this account: it is not shown"
        case .unreadable(let reason): "the message cannot be read: \(reason)"
        }
    }
}
