public import AdamantCore

/// What the service must hold for one registration (a token for the ANS, a device for
/// adamant-ns), folded from the account's own signals in chain order, with no contact with the
/// service.
///
/// The C# ANS applies each poll (about 10 s) as a set, adds before removes, and drops the
/// removes of a poll whose only adds were duplicates (docs/node-api.md §4.1). So the last
/// signal of a token decides only when no opposite signal of that token is within `gap`
/// blocks before it; otherwise its outcome depends on strangers' traffic and it is at risk.
///
/// adamant-ns applies every signal as it is admitted and again in each poll that reads its block,
/// newest first (docs/node-api.md §4.2). A poll that reads two different signals of one device
/// leaves the older one standing, so the last signal decides only when the device's signal before
/// it is the same or more than `gap` blocks older; otherwise it is at risk.
public struct TokenState: Sendable, Hashable {
    /// Where a token stands with the service, as far as the chain can tell.
    public enum Standing: Sendable, Hashable {
        /// No signal for this token on chain.
        case never
        /// The last signal is an add, clear of any remove.
        case registered
        /// The last signal is a remove, clear of any add.
        case unregistered
        /// The last signal is within `gap` blocks after an opposite one: the service may hold
        /// either outcome.
        case atRisk
    }

    /// Registered, unregistered, never seen, or at risk.
    public let standing: Standing
    /// The last signal, nil for `.never`.
    public let last: OwnSignal?
    /// The heights of the last add and the last remove: a signal is sent only once the chain
    /// is `gap` blocks past the last opposite one, so the two never share a poll of the service.
    public let lastAddHeight: Int64?
    /// The height of the token's last remove, nil when it has none.
    public let lastRemoveHeight: Int64?

    /// A token with no signal on chain.
    public static let never = TokenState(standing: .never, last: nil, lastAddHeight: nil, lastRemoveHeight: nil)

    /// Registered with this provider, for certain.
    public func isRegistered(with provider: PushProvider) -> Bool {
        standing == .registered && last?.signal.provider == provider
    }

    /// Registered, for certain, as `signal` asks: its provider, and its token (a device of
    /// adamant-ns may hold another).
    public func isRegistered(as signal: PushSignal) -> Bool {
        isRegistered(with: signal.provider) && last?.signal.token == signal.token
    }

    /// Unregistered for certain (or never registered).
    public var isUnregistered: Bool { standing == .never || standing == .unregistered }
}

/// The account's signals across tokens. In the C# service a poll whose only adds are
/// duplicates drops every remove in it, whoever's and of whatever token, so a remove keeps its
/// distance from every add of the account, landed or in flight.
public struct AccountActivity: Sendable, Hashable {
    /// The block of the account's last add of any token, nil when it sent none.
    public var lastAddHeight: Int64?
    /// The block of the account's last remove of any token, nil when it sent none.
    public var lastRemoveHeight: Int64?
    /// Attempts of any key that may still land, by action (filled in by the executor).
    public var liveAdds: [TransactionID] = []
    /// The removes among them (`liveAdds` are the adds).
    public var liveRemoves: [TransactionID] = []

    /// Activity from the chain's heights, with the live attempts to come (`with(live:)`).
    public init(
        lastAddHeight: Int64? = nil, lastRemoveHeight: Int64? = nil, liveAdds: [TransactionID] = [],
        liveRemoves: [TransactionID] = []
    ) {
        self.lastAddHeight = lastAddHeight
        self.lastRemoveHeight = lastRemoveHeight
        self.liveAdds = liveAdds
        self.liveRemoves = liveRemoves
    }

    /// The live attempts of every intent, with the chain's heights.
    public func with(live intents: some Sequence<Intent>) -> AccountActivity {
        var copy = self
        for attempt in intents.flatMap(\.liveAttempts) {
            if attempt.action == .add { copy.liveAdds.append(attempt.id) } else { copy.liveRemoves.append(attempt.id) }
        }
        return copy
    }
}

/// What the chain says about one account's registrations: a state per token, and the
/// account's recent activity across tokens.
public struct AccountChainState: Sendable, Hashable {
    /// Each token's state, by token; a token missing here has never been signalled.
    public var tokens: [String: TokenState]
    /// The account's signals across tokens.
    public var activity: AccountActivity

    /// The state of `token`, `TokenState.never` when it has no signal.
    public subscript(token: String) -> TokenState { tokens[token] ?? .never }
}

/// Folds own signals into a state per registration.
public struct ChainFold: Sendable {
    /// Blocks within which two signals may share a poll of the service.
    public let gap: Int64
    /// The service whose rules the fold follows.
    public let kind: ServiceKind

    /// A fold for the service's poll window: 3 blocks, one C# poll and more, five of adamant-ns.
    public init(gap: Int64 = 3, kind: ServiceKind = .ans) {
        self.gap = gap
        self.kind = kind
    }

    /// `signals` in any order and possibly repeated (pages overlap), keyed by `kind`.
    ///
    /// For the ANS, beyond each token's own history, a remove is also at risk when any add of
    /// the account is within `gap` blocks of it, before or after: they may share a poll, and if
    /// that poll's only adds are duplicates the service drops the remove. (Whether an add was a
    /// duplicate depends on what the service held, which a lost remove makes unknowable; so any
    /// add counts.) adamant-ns keeps devices apart, so there the account's activity stays empty.
    public func account(of signals: some Sequence<OwnSignal>) -> AccountChainState {
        var byToken: [String: [OwnSignal]] = [:]
        var seen = Set<TransactionID>()
        for signal in signals where seen.insert(signal.id).inserted {
            byToken[kind.key(of: signal.signal), default: []].append(signal)
        }
        var tokens: [String: TokenState] = [:]
        var addHeights: [Int64] = []
        var activity = AccountActivity()
        for (token, unordered) in byToken {
            let ordered = unordered.sorted(by: OwnSignal.inChainOrder)
            var walk = Walk(gap: gap, kind: kind)
            for signal in ordered {
                if signal.signal.action == .add { addHeights.append(signal.height) }
                walk.append(signal)
            }
            tokens[token] = walk.state
            activity.lastAddHeight = max(activity.lastAddHeight ?? .min, walk.lastAddHeight ?? .min)
            activity.lastRemoveHeight = max(activity.lastRemoveHeight ?? .min, walk.lastRemoveHeight ?? .min)
        }
        if activity.lastAddHeight == .min { activity.lastAddHeight = nil }
        if activity.lastRemoveHeight == .min { activity.lastRemoveHeight = nil }
        guard kind == .ans else { return AccountChainState(tokens: tokens, activity: AccountActivity()) }
        for (token, state) in tokens where state.standing == .unregistered {
            guard let removed = state.last?.height else { continue }
            if addHeights.contains(where: { abs($0 - removed) <= gap }) {
                tokens[token] = TokenState(
                    standing: .atRisk, last: state.last, lastAddHeight: state.lastAddHeight,
                    lastRemoveHeight: state.lastRemoveHeight)
            }
        }
        return AccountChainState(tokens: tokens, activity: activity)
    }

    /// Per-token states alone.
    public func states(of signals: some Sequence<OwnSignal>) -> [String: TokenState] { account(of: signals).tokens }

    /// The state of one registration from its signals in chain order, on its own.
    public func state(of ordered: [OwnSignal]) -> TokenState {
        var walk = Walk(gap: gap, kind: kind)
        for signal in ordered { walk.append(signal) }
        return walk.state
    }

    /// One token's signals taken in chain order, keeping what decides its state so far.
    private struct Walk {
        let gap: Int64
        let kind: ServiceKind
        var last: OwnSignal?
        var lastAddHeight: Int64?
        var lastRemoveHeight: Int64?
        /// Whether the last signal has one within `gap` blocks before it that the service may
        /// apply after it: an opposite one for the ANS, any other one for adamant-ns.
        var contested = false
        /// adamant-ns: the device's signals within `gap` blocks of the last.
        var recent: [OwnSignal] = []

        mutating func append(_ signal: OwnSignal) {
            switch kind {
            case .ans:
                let opposite = signal.signal.action == .add ? lastRemoveHeight : lastAddHeight
                contested = opposite.map { signal.height - $0 <= gap } ?? false
            case .ns:
                // A poll that reads this block leaves standing the oldest signal it reads: the
                // outcome is this one's unless a different one is close enough to share a poll.
                recent.removeAll { signal.height.saturatingSubtract($0.height) > gap }
                contested = recent.contains {
                    $0.signal.action != signal.signal.action || $0.signal.token != signal.signal.token
                        || $0.signal.provider != signal.signal.provider
                }
                recent.append(signal)
            }
            if signal.signal.action == .add { lastAddHeight = signal.height } else { lastRemoveHeight = signal.height }
            last = signal
        }

        var state: TokenState {
            guard let last else { return .never }
            let standing: TokenState.Standing =
                contested ? .atRisk : (last.signal.action == .add ? .registered : .unregistered)
            return TokenState(
                standing: standing, last: last, lastAddHeight: lastAddHeight, lastRemoveHeight: lastRemoveHeight)
        }
    }
}
