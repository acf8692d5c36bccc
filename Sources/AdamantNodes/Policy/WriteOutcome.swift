public import AdamantCore

/// What became of a submitted transaction, with the node's own words where it gave any.
public enum WriteOutcome: Sendable, Hashable, CustomStringConvertible {
    /// `success: true`: in this node's pool, not yet in a block (confirm by id later).
    case accepted(TransactionID)
    /// `Transaction is already processed/confirmed: <id>` with our id.
    case applied(TransactionID, message: String)
    /// It may or may not have landed: look the id up (chain, then pool) before acting.
    case ambiguous(String)
    /// This node could not take it; the same bytes may go to another node.
    case tryElsewhere(String)
    /// The node's clock disagrees with the timestamp: sign again with the node's clock.
    case clock(String)
    /// The transaction is wrong and will stay wrong: never resend it.
    case rejected(String)

    /// A node's JSON error for the transaction `id`.
    init(message: String, status: Int, id: TransactionID, isResend: Bool) {
        switch NodeErrorClass(message: message, status: status, isResend: isResend) {
        case .applied:
            // The node names the id it computed from our bytes; any other id means confusion.
            let named = message.split(separator: " ").last.flatMap { TransactionID($0) }
            self = named == id ? .applied(id, message: message) : .ambiguous(message)
        case .ambiguous: self = .ambiguous(message)
        case .tryElsewhere: self = .tryElsewhere(message)
        case .clock: self = .clock(message)
        case .rejected: self = .rejected(message)
        }
    }

    /// An HTTP answer that is not node JSON (a proxy page, a rate limiter's text).
    init(answerWithoutNodeJSON reason: String, status: Int) {
        self =
            NodeErrorClass(answerWithoutNodeJSON: status) == .tryElsewhere ? .tryElsewhere(reason) : .ambiguous(reason)
    }

    /// Whether the transaction is, or is on its way to being, on chain.
    public var isSuccess: Bool {
        switch self {
        case .accepted, .applied: true
        case .ambiguous, .tryElsewhere, .clock, .rejected: false
        }
    }

    /// The outcome in words, with the node's message.
    public var description: String {
        switch self {
        case .accepted(let id): "accepted \(id)"
        case .applied(_, let message): "already applied: \(message)"
        case .ambiguous(let message): "ambiguous: \(message)"
        case .tryElsewhere(let message): "try elsewhere: \(message)"
        case .clock(let message): "clock: \(message)"
        case .rejected(let message): "rejected: \(message)"
        }
    }
}
