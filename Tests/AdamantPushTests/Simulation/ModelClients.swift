import AdamantCore

@testable import AdamantPush

/// Where a client process dies during a send, if it does.
enum CrashPoint: CaseIterable {
    case beforeRecord, afterRecord, afterBroadcast
}

/// What the user does: log in with a token (the app then wants it registered, and the previous
/// token, if different, unregistered), or log out.
enum UserAction: Hashable {
    case login(String)
    case logout
}

/// This project's algorithm: the real `Planner` and `ChainFold`, with an executor that does
/// what `Outbox`'s does (read own signals, resolve attempts, plan each key, carry it out),
/// against the simulated network. Its state is what the store would hold, so a crash is an
/// early return.
struct ModelOutbox {
    let me: Int
    let planner = Planner()
    let fold = ChainFold(gap: 3)
    let absentAfterBlocks: Int64 = 3
    private(set) var intents: [Intent] = []
    /// The own signals read so far (the chain only grows).
    private var own: [OwnSignal] = []
    /// The token the user is logged in with here, as this home's client remembers it.
    private(set) var current: String?
    private var nextID: Int64 = 1

    init(me: Int) { self.me = me }

    mutating func user(_ action: UserAction, now: Int64) {
        switch action {
        case .login(let token):
            if let current, current != token { want(.remove, current, now) }
            want(.add, token, now)
            current = token
        case .logout:
            if let current { want(.remove, current, now) }
            current = nil
        }
    }

    /// `unregister --all`: a remove for every token the chain shows may be registered, from
    /// the chain alone (this home may know none of them).
    mutating func unregisterAll(seenOn network: SimulatedNetwork, now: Int64) {
        read(network)
        for (token, state) in fold.states(of: own).sorted(by: { $0.key < $1.key }) where !state.isUnregistered {
            want(.remove, token, now)
        }
        current = nil
    }

    private mutating func read(_ network: SimulatedNetwork) {
        for landed in network.signals(from: me).dropFirst(own.count) {
            own.append(
                OwnSignal(
                    id: TransactionID(number: landed.signal.id), height: landed.height, timestamp: 0,
                    signal: try! PushSignal(
                        token: landed.signal.token, provider: landed.signal.provider, action: landed.signal.action)))
        }
    }

    private mutating func want(_ action: PushAction, _ token: String, _ now: Int64) {
        let sequence = (intents.filter { $0.signal.token == token }.map(\.sequence).max() ?? 0) + 1
        intents.append(
            Intent(
                id: nextID, sequence: sequence, signal: try! PushSignal(token: token, provider: .apns, action: action),
                createdAt: now))
        nextID += 1
    }

    mutating func run(on network: inout SimulatedNetwork, _ conditions: SendConditions, crash: CrashPoint?, now: Int64)
    {
        read(network)
        // Resolve attempts that may still land.
        for index in intents.indices {
            for a in intents[index].attempts.indices where intents[index].attempts[a].mayStillLand {
                let attempt = intents[index].attempts[a]
                if let height = network.blockHeight(of: attempt.id.number) {
                    intents[index].attempts[a].outcome = .confirmed(height: height)
                } else if network.isPooled(attempt.id.number) && !conditions.staleLookups {
                    if attempt.outcome == .recorded { intents[index].attempts[a].outcome = .accepted }
                } else if network.height >= attempt.sentHeight + absentAfterBlocks {
                    intents[index].attempts[a].outcome = .absent
                }
            }
        }
        let account = fold.account(of: own)
        for token in Set(intents.map(\.signal.token)).sorted() {
            let chain = account[token]
            let group = intents.filter { $0.signal.token == token }
            let activity = account.activity.with(live: intents)  // includes what this pass sent
            for step in planner.plan(intents: group, chain: chain, account: activity, height: network.height, now: now)
            {
                switch step {
                case .supersede(let id): update(id) { $0.state = .superseded }
                case .apply(let id, let height): update(id) { $0.state = .applied(height: height) }
                case .reopen(let id):
                    update(id) { ($0.state, $0.activeSince, $0.retries, $0.notBefore) = (.pending, now, 0, 0) }
                case .cede(let id, let signal): update(id) { $0.state = .overridden(by: signal) }
                case .fail(let id, let reason): update(id) { $0.state = .failed(reason) }
                case .wait: break
                case .send(let id, let action):
                    guard let intent = intents.first(where: { $0.id == id }) else { continue }
                    if conditions.offline {
                        let policy = planner.policy
                        update(id) {
                            $0.notBefore = now + policy.backoff(retries: $0.retries)
                            $0.retries += 1
                        }
                        continue
                    }
                    if crash == .beforeRecord { return }
                    let provider =
                        action == intent.action ? intent.signal.provider : (chain.last?.signal.provider ?? .apns)
                    let signal = SimSignal(
                        id: network.newID(), sender: me, token: token, provider: provider, action: action)
                    let attempt = Attempt(
                        id: TransactionID(number: signal.id), action: action, node: "n", timestamp: 0, sentAt: now,
                        sentHeight: network.height, outcome: .recorded)
                    update(id) {
                        $0.attempts.append(attempt)
                        $0.state = .inflight
                    }
                    if crash == .afterRecord { return }
                    network.accept(signal, delay: conditions.dropped ? nil : conditions.delay)
                    if crash == .afterBroadcast { return }
                    update(id) {
                        $0.attempts[$0.attempts.count - 1].outcome = conditions.answerLost ? .ambiguous : .accepted
                    }
                }
            }
        }
    }

    private mutating func update(_ id: Int64, _ change: (inout Intent) -> Void) {
        guard let index = intents.firstIndex(where: { $0.id == id }) else { return }
        change(&intents[index])
    }

    /// Every landed signal seen, nothing of ours in a pool and every key settled: another run
    /// would do nothing until the chain changes, and only our own signals change it for us.
    func isIdle(on network: SimulatedNetwork) -> Bool {
        guard network.signals(from: me).count == own.count, !network.hasPooled(from: me),
            intents.allSatisfy({ $0.liveAttempts.isEmpty })
        else { return false }
        return Dictionary(grouping: intents, by: \.signal.token).values.allSatisfy { group in
            switch group.max(by: { $0.sequence < $1.sequence })?.state {
            case .applied?, .failed?, .superseded?, .overridden?: true
            default: false
            }
        }
    }

    /// Signals ever broadcast per intent, to count double sends.
    var sendsPerIntent: [Int64: Int] { Dictionary(uniqueKeysWithValues: intents.map { ($0.id, $0.attempts.count) }) }
}

/// The iOS app's algorithm (docs/clients.md §1.4): a stored token, set only when an add
/// succeeds and compared on every login; removes signed once, kept when their send fails, and
/// resent at cold launch. On 0.10 nodes a resent remove older than the past window is refused
/// and kept forever; on 0.9 it lands whenever it is resent.
struct ModelIOSApp {
    let me: Int
    let version010: Bool
    private(set) var storedToken: String?
    private var pendingRemoves: [(signal: SimSignal, signedAt: Int64)] = []

    init(me: Int, version010: Bool) {
        self.me = me
        self.version010 = version010
    }

    mutating func user(
        _ action: UserAction, on network: inout SimulatedNetwork, _ conditions: SendConditions, crash: CrashPoint?,
        now: Int64
    ) {
        switch action {
        case .login(let token):
            guard token != storedToken else { return }  // "the token equals the stored one": nothing
            if let old = storedToken { remove(old, on: &network, conditions, crash: crash, now: now) }
            if crash != nil { return }
            let add = SimSignal(id: network.newID(), sender: me, token: token, provider: .apns, action: .add)
            if send(add, on: &network, conditions) { storedToken = token }
        case .logout:
            if let old = storedToken { remove(old, on: &network, conditions, crash: crash, now: now) }
        }
    }

    /// Clears the stored token first, then sends; a failed send is kept (unless the app dies
    /// before it is written: docs/clients.md B7).
    private mutating func remove(
        _ token: String, on network: inout SimulatedNetwork, _ conditions: SendConditions, crash: CrashPoint?,
        now: Int64
    ) {
        storedToken = nil
        let remove = SimSignal(id: network.newID(), sender: me, token: token, provider: .apns, action: .remove)
        if crash == .beforeRecord { return }
        if !send(remove, on: &network, conditions) { pendingRemoves.append((remove, now)) }
    }

    /// Cold launch: every kept remove is sent again; success drops it, any error keeps it.
    mutating func coldLaunch(on network: inout SimulatedNetwork, _ conditions: SendConditions, now: Int64) {
        pendingRemoves = pendingRemoves.filter { pending in
            // "more than 5 seconds in the past", kept (docs/clients.md B8)
            if version010 && now - pending.signedAt > 10_000 { return true }
            return !send(pending.signal, on: &network, conditions)
        }
    }

    /// True when the app sees success. A lost answer is a failure to the app, though the node
    /// took the transaction.
    private func send(_ signal: SimSignal, on network: inout SimulatedNetwork, _ conditions: SendConditions) -> Bool {
        if conditions.offline { return false }
        if !network.isPooled(signal.id) && network.blockHeight(of: signal.id) == nil {
            network.accept(signal, delay: conditions.dropped ? nil : conditions.delay)
        }
        return !conditions.answerLost
    }
}
