public import AdamantCore

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
    /// No node had it by the deadline, or no node could be asked.
    case notFound(String)
    /// The fetch was stopped (its task cancelled) before the transaction was found.
    case cancelled
    /// No node was usable (offline, wrong network, out of sync): nobody could be asked.
    case noUsableNode(String)
    /// Nodes answered, but no answer verified; or a carried transaction that does not verify.
    case unverifiable(String)
    /// Verified, but this account is neither its sender nor its recipient.
    case notOurs(sender: Address, recipient: Address?)
    /// Ours and verified, but its message cannot be read.
    case unreadable(String)

    /// The reason in a sentence, with what to do where there is something to do.
    public var description: String {
        switch self {
        case .wrongAccount(let pushedFor, let account):
            "the push is for \(pushedFor), not for this passphrase's account \(account): fetch it with that account's passphrase"
        case .notFound(let detail): "the transaction was not found by the deadline (\(detail))"
        case .cancelled: "the fetch was stopped before the transaction was found"
        case .noUsableNode(let detail): detail
        case .unverifiable(let detail): "the transaction cannot be verified: \(detail)"
        case .notOurs(let sender, let recipient):
            "the transaction is between \(sender) and \(recipient.map(\.description) ?? "nobody"), not this account: it is not shown"
        case .unreadable(let detail): "the message cannot be read: \(detail)"
        }
    }
}
