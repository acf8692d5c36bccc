public import AdamantCore

/// The user's wish for one token: registered with a provider, or not registered. Only the
/// newest intent of a key (account, service, token) is ever sent.
public struct Intent: Sendable, Hashable, Identifiable {
    /// The intent's row in the store.
    public let id: Int64
    /// Increases per key; the highest is the user's last word.
    public let sequence: Int64
    /// The signal this intent asks for (its action is the intent's).
    public let signal: PushSignal
    /// When the user asked (Unix ms).
    public let createdAt: Int64
    /// Since when it has needed work: its creation, or when the chain stopped matching it after
    /// it was applied (a late landing). The age bound counts from here.
    public var activeSince: Int64
    /// Where it stands: pending, in flight, or settled one way or another.
    public var state: IntentState
    /// Every transaction signed for it, oldest first.
    public var attempts: [Attempt]
    /// Failed tries so far, for the backoff.
    public var retries: Int
    /// Not sent again before this time (Unix ms).
    public var notBefore: Int64
    /// Sent even when the chain seems to hold it already, and applied only once its own signal
    /// is the token's last: `repair` after evidence that the service lost what the chain shows.
    public let mustSend: Bool

    /// Add or remove: the signal's action.
    public var action: PushAction { signal.action }

    /// An intent as the store keeps it (the store makes them; tests and planners take them apart).
    public init(
        id: Int64, sequence: Int64, signal: PushSignal, createdAt: Int64, activeSince: Int64? = nil,
        state: IntentState = .pending, attempts: [Attempt] = [], retries: Int = 0, notBefore: Int64 = 0,
        mustSend: Bool = false
    ) {
        self.id = id
        self.sequence = sequence
        self.signal = signal
        self.createdAt = createdAt
        self.activeSince = activeSince ?? createdAt
        self.state = state
        self.attempts = attempts
        self.retries = retries
        self.notBefore = notBefore
        self.mustSend = mustSend
    }

    /// Attempts that may still land on chain.
    public var liveAttempts: [Attempt] { attempts.filter(\.mayStillLand) }
}

/// Where an intent stands. Superseded, overridden and failed are final: a pass does nothing
/// more for them (only `repair` takes a failed one up again). Applied and waiting for funds are
/// done for now, and looked at again on every pass: the chain or the balance may change.
public enum IntentState: Sendable, Hashable {
    /// Waiting to be sent, or between tries.
    case pending
    /// Sent; waiting for a block (or for its attempts to be found or proven absent).
    case inflight
    /// The chain matches it: a signal at this height did it, or nothing was needed (nil).
    case applied(height: Int64?)
    /// A newer intent of the same key replaced it before any of its attempts could land.
    case superseded
    /// Applied, then the token's last signal came from another client of the account (another
    /// home, an app holding the passphrase): that signal is the user's newer word, so nothing
    /// is sent to undo it. A new intent for the token starts over.
    case overridden(by: OwnSignal)
    /// The balance is below a signal's fee; a later run sends it once funded.
    case waitingForFunds
    /// Given up: refused for good by a node (its message), or too old.
    case failed(String)

    /// Final: no pass looks at it again.
    public var isSettled: Bool {
        switch self {
        case .superseded, .overridden, .failed: true
        case .applied, .pending, .inflight, .waitingForFunds: false
        }
    }
}

/// One signed transaction sent for an intent, recorded before its bytes left.
public struct Attempt: Sendable, Hashable {
    /// The transaction's id, known before it was sent.
    public let id: TransactionID
    /// What the transaction does; usually the intent's action, but an add whose token is
    /// registered under another provider sends a remove first.
    public let action: PushAction
    /// The node whose answer was classified; empty until one answered.
    public let node: String
    /// Its signed timestamp (ADAMANT seconds, by that node's clock).
    public let timestamp: Int32
    /// When it was sent (Unix ms, this device's clock).
    public let sentAt: Int64
    /// The chain height when it was sent: "absent" needs some blocks after it.
    public let sentHeight: Int64
    /// What is known of it so far.
    public var outcome: AttemptOutcome

    /// An attempt as the store keeps it.
    public init(
        id: TransactionID, action: PushAction, node: String, timestamp: Int32, sentAt: Int64, sentHeight: Int64,
        outcome: AttemptOutcome
    ) {
        self.id = id
        self.action = action
        self.node = node
        self.timestamp = timestamp
        self.sentAt = sentAt
        self.sentHeight = sentHeight
        self.outcome = outcome
    }

    /// It may yet be, or be in, a block: recorded, accepted or ambiguous. Nothing newer is sent for
    /// the token until it is found or proven absent.
    public var mayStillLand: Bool {
        switch outcome {
        case .recorded, .accepted, .ambiguous: true
        case .confirmed, .refused, .absent: false
        }
    }
}

/// What is known of one attempt.
public enum AttemptOutcome: Sendable, Hashable {
    /// Written before the broadcast; no answer stored (in progress, or the process died).
    case recorded
    /// A node took it into its pool.
    case accepted
    /// No answer, or one that proves nothing: it may be anywhere.
    case ambiguous
    /// A node refused it (the message); it can never land.
    case refused(String)
    /// In a block at this height.
    case confirmed(height: Int64)
    /// Looked for on the nodes, blocks after it was sent, and not found in a block or a pool.
    case absent
}
