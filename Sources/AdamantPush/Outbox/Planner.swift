public import AdamantCore

/// The scheduler's decision for one key, as a pure function of its intents, the chain's state
/// of its token, the chain height and the time. No I/O: the executor gathers the inputs,
/// carries out what it says and asks again.
public struct Planner: Sendable {
    /// The scheduler's numbers: the gap, the age bound, the backoff.
    public struct Policy: Sendable, Hashable {
        /// Blocks a signal keeps from the last opposite signal of its token (the C# ANS polls
        /// about every 10 s, a block is 5 s), or from the device's last signal (adamant-ns polls
        /// every 3 s).
        public var gap: Int64 = 3
        /// adamant-ns also reads by time: a device's signal is sent at least this long (ms) after
        /// the device's last one was signed, so that no poll reads both even where blocks come
        /// faster than its polls.
        public var replayWindowMillis: Int64 = 12_000
        /// An intent not applied after this long (ms) fails instead of being retried forever.
        public var maxAgeMillis: Int64 = 7 * 24 * 3_600_000
        /// Backoff after a failed try: base × 2^retries, capped, with jitter added by the executor.
        public var backoffBaseMillis: Int64 = 2_000
        /// The longest backoff (ms).
        public var backoffCapMillis: Int64 = 15 * 60_000

        /// A gap of 3 blocks and 12 s, a bound of 7 days, backoff from 2 s up to 15 minutes.
        public init() {}

        /// The delay before try `retries + 1`, before jitter.
        public func backoff(retries: Int) -> Int64 {
            let exponent = min(max(retries, 0), 30)
            let (delay, overflow) = backoffBaseMillis.multipliedReportingOverflow(by: Int64(1) << exponent)
            return overflow ? backoffCapMillis : min(delay, backoffCapMillis)
        }
    }

    /// Why nothing is sent now.
    public enum Wait: Sendable, Hashable {
        /// Attempts (of this intent or an older one) may still land: look them up first.
        case attemptsInFlight([TransactionID])
        /// The chain must reach this height first (the gap after an opposite signal).
        case height(Int64)
        /// Backing off until this time (Unix ms).
        case time(Int64)
        /// adamant-ns: keeping clear of the device's last signal until this time (Unix ms).
        case replayWindow(Int64)
    }

    /// One thing to do for one intent of the key.
    public enum Step: Sendable, Hashable {
        /// Settle an older intent as replaced: none of its attempts can still land.
        case supersede(intent: Int64)
        /// Settle the intent as applied: the chain matches it (at this block, or with nothing
        /// sent).
        case apply(intent: Int64, height: Int64?)
        /// An applied intent the chain no longer matches because a signal of this home landed
        /// late: it needs work again, from now, with a fresh backoff.
        case reopen(intent: Int64)
        /// Settle an applied intent as overridden: the token's last signal, which no longer
        /// matches it, was sent by another client of the account after it.
        case cede(intent: Int64, to: OwnSignal)
        /// Give the intent up: too old, or refused for good.
        case fail(intent: Int64, reason: String)
        /// Sign and send this action for the intent now.
        case send(intent: Int64, action: PushAction)
        /// Do nothing for the intent now, and why.
        case wait(intent: Int64, Wait)
    }

    /// The numbers this planner plans with.
    public let policy: Policy
    /// The service whose rules it plans by.
    public let kind: ServiceKind

    /// A planner with `policy`, for `kind`'s service.
    public init(policy: Policy = Policy(), kind: ServiceKind = .ans) {
        self.policy = policy
        self.kind = kind
    }

    /// The steps for one key. `intents` are all of the key's intents, settled ones too (any
    /// order): their attempts tell this home's signals from another client's. `chain` is the
    /// state of its token and `account` the account's activity on chain; `height` the chain
    /// height now; `now` Unix ms.
    public func plan(
        intents: [Intent], chain: TokenState, account: AccountActivity = AccountActivity(), height: Int64, now: Int64
    ) -> [Step] {
        guard var newest = intents.max(by: { $0.sequence < $1.sequence }) else { return [] }
        var steps: [Step] = []

        // Older intents: cancelled unless something of theirs may still land.
        let older = intents.filter { $0.id != newest.id && !$0.state.isSettled }
        for intent in older where intent.liveAttempts.isEmpty { steps.append(.supersede(intent: intent.id)) }
        if newest.state.isSettled { return steps }
        let olderInFlight = older.flatMap(\.liveAttempts).map(\.id)
        if !olderInFlight.isEmpty { return steps + [.wait(intent: newest.id, .attemptsInFlight(olderInFlight))] }

        if satisfied(newest, by: chain) {
            if newest.state != .applied(height: chain.last?.height) {
                steps.append(.apply(intent: newest.id, height: chain.last?.height))
            }
            return steps
        }
        if case .applied = newest.state {
            // Only this home's own signal landing late is healed; one it never signed is the
            // user's newer word from elsewhere, and sending again would undo it.
            if let last = chain.last, !intents.contains(where: { $0.attempts.contains { $0.id == last.id } }) {
                return steps + [.cede(intent: newest.id, to: last)]
            }
            steps.append(.reopen(intent: newest.id))
            (newest.state, newest.activeSince, newest.retries, newest.notBefore) = (.pending, now, 0, 0)
        }
        let inFlight = newest.liveAttempts.map(\.id)
        if !inFlight.isEmpty { return steps + [.wait(intent: newest.id, .attemptsInFlight(inFlight))] }
        if now.saturatingDistance(from: newest.activeSince) > policy.maxAgeMillis {
            return steps + [
                .fail(
                    intent: newest.id,
                    reason: "not applied within \(policy.maxAgeMillis / 86_400_000) days: every try failed")
            ]
        }
        if now < newest.notBefore { return steps + [.wait(intent: newest.id, .time(newest.notBefore))] }

        let action = nextAction(for: newest, chain: chain)
        if kind == .ans {
            // Opposite signals of the account are never in flight together (see `gapFloor`).
            let conflicting =
                action == .remove ? account.liveAdds : (chain.standing == .atRisk ? account.liveRemoves : [])
            if !conflicting.isEmpty { return steps + [.wait(intent: newest.id, .attemptsInFlight(conflicting))] }
        }
        let clearOf = gapFloor(for: action, chain: chain, account: account)
        if let clearOf {
            let (clear, overflow) = clearOf.addingReportingOverflow(policy.gap)
            if !overflow, height < clear { return steps + [.wait(intent: newest.id, .height(clear))] }
        }
        if kind == .ns, let last = chain.last {
            let clear = AdamantTime.unixMillis(timestamp: Int64(last.timestamp)).saturatingAdd(
                policy.replayWindowMillis)
            if now < clear { return steps + [.wait(intent: newest.id, .replayWindow(clear))] }
        }
        return steps + [.send(intent: newest.id, action: action)]
    }

    /// The height a signal must keep `gap` blocks from, so it never shares a poll of the service
    /// with a signal that could undo it. For adamant-ns, the device's last signal, whatever it
    /// was. For the ANS:
    /// - an add, the token's last remove; and when the add may be a duplicate (the token is at
    ///   risk, so perhaps still registered), the account's last remove of any token, which a
    ///   duplicate-only poll would drop;
    /// - a remove, the account's last add of any token (the token's own included), which may be a
    ///   duplicate.
    func gapFloor(for action: PushAction, chain: TokenState, account: AccountActivity) -> Int64? {
        if kind == .ns { return chain.last?.height }
        switch action {
        case .add:
            let own = chain.lastRemoveHeight
            guard chain.standing == .atRisk else { return own }
            return [own, account.lastRemoveHeight].compactMap { $0 }.max()
        case .remove:
            return [chain.lastAddHeight, account.lastAddHeight].compactMap { $0 }.max()
        }
    }

    /// The chain already holds what the intent asks for; for a must-send intent, through a
    /// signal of its own.
    func satisfied(_ intent: Intent, by chain: TokenState) -> Bool {
        if intent.mustSend, !intent.attempts.contains(where: { $0.id == chain.last?.id }) { return false }
        switch intent.action {
        case .add: return chain.isRegistered(as: intent.signal)
        case .remove: return chain.isUnregistered
        }
    }

    /// What to send for an unsatisfied intent. For the ANS, an add over a registration of
    /// another provider removes first: the service keeps a row per provider, so two would mean
    /// double pushes. adamant-ns replaces a device's token and provider with one add, and a
    /// remove there could only race it.
    func nextAction(for intent: Intent, chain: TokenState) -> PushAction {
        guard kind == .ans, intent.action == .add, chain.standing == .registered, let last = chain.last,
            last.signal.provider != intent.signal.provider
        else { return intent.action }
        return .remove
    }
}

extension Int64 {
    /// `self − other`, saturating: stored times may be anything a damaged file holds.
    func saturatingDistance(from other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > self ? .min : .max) : difference
    }
}
