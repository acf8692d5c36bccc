/// What a node's error means for a client that may retry (docs/node-api.md §2, "Classification a
/// retrying client can use"). Messages are matched by substring, as the node appends details.
public enum NodeErrorClass: Sendable, Hashable {
    /// The transaction is already in this node's pool or in the chain.
    case applied
    /// It may or may not have landed: look its id up before doing anything else.
    case ambiguous
    /// A problem of this node, not of the transaction: the same bytes may go elsewhere.
    case tryElsewhere
    /// The node's clock and the timestamp disagree: sign again with the node's clock.
    case clock
    /// The transaction itself is wrong: surface the message, never resend it.
    case rejected

    static let appliedMessages = ["Transaction is already processed", "Transaction is already confirmed"]
    static let clockMessages = [
        "Transaction timestamp is in the future", "Invalid transaction timestamp. Timestamp is in the future",
    ]
    static let pastWindowMessage = "Transaction timestamp is more than 5 seconds in the past"
    package static let insufficientBalanceMessage = "Account does not have enough ADM"
    static let crashMessagePrefix = "API error:"
    static let elsewhereMessages = [
        "Transaction pool is full", "Blockchain is loading", "Transactions#getById error",
        "Transaction#countById error",
        "API endpoint not found", "API access denied", "API access disabled",
    ]

    /// Classifies a node's error for a submitted transaction.
    ///
    /// - Parameters:
    ///   - message: the node's `error` text.
    ///   - status: the HTTP status it came with.
    ///   - isResend: whether these bytes, or an earlier signing of the same intent, may have
    ///     reached a node before. "Not enough ADM" then may mean our first copy was applied.
    public init(message: String, status: Int, isResend: Bool) {
        let has = { (texts: [String]) in texts.contains { message.contains($0) } }
        self =
            if has(Self.appliedMessages) { .applied } else if has(Self.clockMessages) {
                .clock
            } else if message.contains(Self.pastWindowMessage) || message.hasPrefix(Self.crashMessagePrefix) {
                .ambiguous
            } else if message.contains(Self.insufficientBalanceMessage) {
                isResend ? .ambiguous : .rejected
            } else if has(Self.elsewhereMessages) { .tryElsewhere } else { Self(unknownMessageWithStatus: status) }
    }

    /// An HTTP answer with no node JSON at all: an HTML page, plain text or undecodable body.
    /// A 3xx/4xx (403 and 429 included) was turned away before any handler ran.
    init(answerWithoutNodeJSON status: Int) {
        self = (300..<500).contains(status) ? .tryElsewhere : .ambiguous
    }

    /// Handlers answer 200 with their validation messages; other statuses come from middleware,
    /// a proxy or a crash, where the transaction may or may not have been handled.
    private init(unknownMessageWithStatus status: Int) {
        self =
            switch status {
            case 200: .rejected
            case 500...: .ambiguous
            default: .tryElsewhere
            }
    }

    /// Whether a read should ask another node instead of taking this answer.
    var meansAnotherNodeMayAnswer: Bool { self == .tryElsewhere || self == .ambiguous }
}
