public import AdamantCore
public import AdamantNodes
import Synchronization

/// Where one key stands after a pass: its newest intent, the chain's view of its token, and
/// what the scheduler is waiting for.
public struct KeyStatus: Sendable, Hashable {
    /// The key's newest intent: the user's last word for the token.
    public let newest: Intent
    /// The token's state on chain; nil when the chain could not be read.
    public let chain: TokenState?
    /// Why nothing was sent now, if something is still to do.
    public let waiting: Planner.Wait?
    /// The latest node refusal or failure for this intent, in the node's words.
    public let lastError: String?

    /// The token the key is about (for adamant-ns, the device's newest).
    public var token: String { newest.signal.token }
    /// What the key is: the token, or for adamant-ns the device id.
    public let key: String

    /// Done for now: applied, overridden, failed, or in need of funds.
    public var isSettled: Bool {
        switch newest.state {
        case .applied, .failed, .superseded, .overridden, .waitingForFunds: true
        case .pending, .inflight: false
        }
    }
}

/// The outcome of a flush: every key's status, the balance when funds were missing, and why
/// the network could not be used, if it could not.
public struct FlushReport: Sendable, Hashable {
    /// Every key the outbox holds, one status each.
    public var keys: [KeyStatus]
    /// The account's spendable balance, when some intent waits for funds.
    public var balance: ADMAmount?
    /// Why the nodes could not be used in the last pass; nil when they could.
    public var networkProblem: NodeError?

    /// A report made of its parts (for tests and for callers that combine reports).
    public init(keys: [KeyStatus], balance: ADMAmount? = nil, networkProblem: NodeError? = nil) {
        self.keys = keys
        self.balance = balance
        self.networkProblem = networkProblem
    }
}

extension Outbox {
    /// Works until every key is settled or `budget` is spent (on the chain's clock), whatever
    /// the nodes do. A budget of zero is one pass.
    public func flush(within budget: Duration) async throws(OutboxError) -> FlushReport {
        try await flush(within: budget) { keys in keys.allSatisfy(\.isSettled) }
    }

    /// Works until `done` holds for the keys' statuses after a pass, or `budget` is spent.
    public func flush(within budget: Duration, done: ([KeyStatus]) -> Bool) async throws(OutboxError) -> FlushReport {
        try await settle(within: budget) { report in done(report.keys) }
    }

    /// Works until the key of `intent` is settled (or a newer intent replaced it), or `budget`
    /// is spent.
    public func waitUntilSettled(_ intent: Intent, within budget: Duration) async throws(OutboxError) -> FlushReport {
        let tag = scope.tag(of: intent.signal)
        return try await settle(within: budget) { report in
            report.keys.first { self.scope.tag($0.key) == tag }.map {
                $0.isSettled || $0.newest.sequence > intent.sequence
            } ?? true
        }
    }

    private func settle(within budget: Duration, done: (FlushReport) -> Bool) async throws(OutboxError) -> FlushReport {
        let clock = chain.clock
        let deadline = clock.now + budget
        while true {
            // Every call of a pass ends by the deadline, a health check's wait included; a
            // budget of zero gives the one pass the calls' own deadlines.
            let report =
                budget > .zero
                ? try await NodeClient.endingBy(deadline) { () throws(OutboxError) in try await pass() }
                : try await pass()
            if done(report) || clock.now >= deadline { return report }
            try? await clock.sleep(until: min(deadline, clock.now + configuration.pollInterval))
            if Task.isCancelled { return report }
        }
    }

    /// Every key's status from the chain and the store. The scheduler runs as in a flush and
    /// records what the chain shows (applied, superseded, reopened, overridden, failed), but signs and
    /// sends nothing.
    public func status() async throws(OutboxError) -> FlushReport {
        try await pass(sending: false)
    }

    /// Every intent kept here, settled ones too, per key in sequence order. No network.
    public func queue() async throws(OutboxError) -> [[Intent]] {
        try await store.intents(scope: scope, includeSettled: true)
    }

    /// One round: read the chain, resolve attempts, plan every key, carry the plan out (all of
    /// it but the sends unless `sending`: what the chain shows is recorded either way).
    func pass(sending: Bool = true) async throws(OutboxError) -> FlushReport {
        var view: ChainView?
        var networkProblem: NodeError?
        do {
            view = try await syncChain()
        } catch .network(let error) {
            networkProblem = error
        }
        var groups = try await store.intents(scope: scope, includeSettled: false)
        if let current = view {
            do { view = try await refreshAttempts(of: groups, view: current) } catch .network(let error) {
                networkProblem = error
            }
            groups = try await store.intents(scope: scope, includeSettled: false)
        }
        guard let view else {
            return FlushReport(
                keys: groups.compactMap { status(of: $0, chain: nil, waiting: nil) }, networkProblem: networkProblem)
        }
        let account = fold.account(of: view.signals)
        var activity = account.activity.with(live: groups.joined())
        var balance: ADMAmount?
        // What the chain shows is recorded in one commit, not one per intent (a pass over
        // 10,000 settled keys was 10,000 fsyncs); written before any send, so every read of
        // the store sees it. A crash before the commit loses nothing: the next pass concludes
        // the same from the chain.
        var recorded: [IntentUpdate] = []
        for group in groups {
            guard let newest = group.max(by: { $0.sequence < $1.sequence }) else { continue }
            let chainState = account[key(of: newest.signal)]
            for step in planner.plan(
                intents: group, chain: chainState, account: activity, height: view.height, now: wallClock.unixMillis())
            {
                guard case .send(let id, let action) = step else {
                    recorded += update(recording: step).map { [$0] } ?? []
                    continue
                }
                guard sending, let intent = group.first(where: { $0.id == id }) else { continue }
                try await store.update(recorded, now: wallClock.unixMillis())
                recorded = []
                do {
                    if let shortOf = try await send(
                        intent, action: action, chain: chainState, account: activity, height: view.height)
                    {
                        balance = shortOf
                    }
                } catch let error as OutboxError { throw error } catch let error as NodeError {
                    networkProblem = error
                } catch {
                    // Not the nodes' doing: a signal or transaction that cannot be made from
                    // what is stored. The intent stays as it is, for the next pass.
                    log.log(.error, "intent \(intent.id) could not be sent: \(error)")
                }
                // What was just sent is in flight for the keys planned after this one.
                activity = account.activity.with(
                    live: try await store.intents(scope: scope, includeSettled: false).joined())
            }
        }
        try await store.update(recorded, now: wallClock.unixMillis())
        let after = try await store.intents(scope: scope, includeSettled: false)
        let finalActivity = account.activity.with(live: after.joined())
        let keys = after.compactMap { group -> KeyStatus? in
            guard let newest = group.max(by: { $0.sequence < $1.sequence }) else { return nil }
            let chainState = account[key(of: newest.signal)]
            let waiting = planner.plan(
                intents: group, chain: chainState, account: finalActivity, height: view.height,
                now: wallClock.unixMillis()
            ).compactMap { step -> Planner.Wait? in
                if case .wait(_, let wait) = step { return wait }
                return nil
            }.first
            return status(of: group, chain: chainState, waiting: waiting)
        }
        return FlushReport(keys: keys, balance: balance, networkProblem: networkProblem)
    }

    private func status(of group: [Intent], chain: TokenState?, waiting: Planner.Wait?) -> KeyStatus? {
        guard let newest = group.max(by: { $0.sequence < $1.sequence }) else { return nil }
        let refusal = newest.attempts.reversed().lazy.compactMap { attempt -> String? in
            if case .refused(let message) = attempt.outcome { return message }
            return nil
        }.first
        let failure: String? = if case .failed(let reason) = newest.state { reason } else { nil }
        return KeyStatus(
            newest: newest, chain: chain, waiting: waiting, lastError: failure ?? refusal, key: key(of: newest.signal))
    }

    /// The store update that records a planner step other than a send; nil for a wait.
    private func update(recording step: Planner.Step) -> IntentUpdate? {
        switch step {
        case .supersede(let id):
            return .state(intent: id, .superseded)
        case .apply(let id, let height):
            log.log(.info, "intent \(id) is applied\(height.map { " (block \($0))" } ?? " (nothing to send)")")
            return .state(intent: id, .applied(height: height))
        case .reopen(let id):
            log.log(
                .warning, "intent \(id) no longer matches the chain (a late signal of this home landed): sending again")
            return .reopen(intent: id)
        case .cede(let id, let signal):
            log.log(
                .warning,
                "intent \(id) was overridden by another client's \(signal.signal.action.rawValue) at block \(signal.height): sending nothing"
            )
            return .state(intent: id, .overridden(by: signal))
        case .fail(let id, let reason):
            return .state(intent: id, .failed(reason))
        case .wait, .send:
            return nil
        }
    }
}
