public import AdamantCore

/// What the service must hold for one token, folded from the account's own signals in chain
/// order, with no contact with the service.
///
/// The C# ANS applies each poll (about 10 s) as a set, adds before removes, and drops the
/// removes of a poll whose only adds were duplicates (spec/node-api.md §4.1). So the last
/// signal of a token decides only when no opposite signal of that token is within `gap`
/// blocks before it; otherwise its outcome depends on strangers' traffic and it is at risk.
public struct TokenState: Sendable, Hashable {
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

    public let standing: Standing
    /// The last signal, nil for `.never`.
    public let last: OwnSignal?
    /// The heights of the last add and the last remove: a signal is sent only once the chain
    /// is `gap` blocks past the last opposite one, so the two never share a poll of the service.
    public let lastAddHeight: Int64?
    public let lastRemoveHeight: Int64?

    public static let never = TokenState(standing: .never, last: nil, lastAddHeight: nil, lastRemoveHeight: nil)

    /// The height of the last signal opposite to `action`.
    public func lastHeight(opposite action: PushAction) -> Int64? {
        action == .add ? lastRemoveHeight : lastAddHeight
    }

    /// Registered with this provider, for certain.
    public func isRegistered(with provider: PushProvider) -> Bool {
        standing == .registered && last?.signal.provider == provider
    }

    /// Unregistered for certain (or never registered).
    public var isUnregistered: Bool { standing == .never || standing == .unregistered }
}

/// Folds own signals into per-token states.
public struct ChainFold: Sendable {
    public let gap: Int64

    public init(gap: Int64 = 3) { self.gap = gap }

    /// `signals` in any order and possibly repeated (pages overlap); one state per token.
    public func states(of signals: some Sequence<OwnSignal>) -> [String: TokenState] {
        var byToken: [String: [OwnSignal]] = [:]
        var seen = Set<TransactionID>()
        for signal in signals where seen.insert(signal.id).inserted {
            byToken[signal.signal.token, default: []].append(signal)
        }
        return byToken.mapValues { state(of: $0.sorted(by: OwnSignal.inChainOrder)) }
    }

    /// The state of one token from its signals in chain order.
    public func state(of ordered: [OwnSignal]) -> TokenState {
        guard let last = ordered.last else { return .never }
        let lastAddHeight = ordered.last(where: { $0.signal.action == .add })?.height
        let lastRemoveHeight = ordered.last(where: { $0.signal.action == .remove })?.height
        // An opposite signal within `gap` blocks before the last one (the same block included).
        let contested = ordered.dropLast().contains {
            $0.signal.action != last.signal.action && last.height - $0.height <= gap
        }
        let standing: TokenState.Standing = contested ? .atRisk : (last.signal.action == .add ? .registered : .unregistered)
        return TokenState(standing: standing, last: last, lastAddHeight: lastAddHeight, lastRemoveHeight: lastRemoveHeight)
    }
}
