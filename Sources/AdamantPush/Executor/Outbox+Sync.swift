import AdamantCore
import AdamantNodes

extension Outbox {
    /// The chain as the outbox sees it: the height when it was read and every own signal kept.
    struct ChainView: Sendable {
        let height: Int64
        let signals: [OwnSignal]
    }

    /// Reads the account's new signals to the service from the nodes (from a little below the
    /// last cursor, since pages overlap harmlessly), keeps them, and returns all kept ones.
    /// `progress` is told how many transactions were read after each full page (more follow).
    func syncChain(progress: (@Sendable (Int) -> Void)? = nil) async throws(OutboxError) -> ChainView {
        let height = try await reading { () throws(NodeError) in try await chain.height() }
        let cursor = try await store.cursor(scope: scope)
        let after = max(0, min(cursor, height) - configuration.policy.gap)
        var found: [OwnSignal] = []
        var offset = 0
        for _ in 0..<configuration.maxSyncPages {
            let page = try await reading { () throws(NodeError) in
                try await chain.signals(sentBy: scope.account, afterHeight: after, offset: offset)
            }
            found += page.compactMap(ownSignal)
            guard page.count >= 100 else { break }
            offset += page.count
            progress?(offset)
        }
        try await store.saveOwnSignals(found, cursor: height, scope: scope)
        return ChainView(height: height, signals: try await store.ownSignals(scope: scope))
    }

    /// A listed transaction as an own signal to the service, or nil: someone else's, another
    /// recipient's, not in a block, not a chat (the service reads no other; a transfer's asset
    /// is not signed, so a node can hang any on it), or not a signal this account can read in
    /// the service's grammar (which the service drops too).
    func ownSignal(_ transaction: Transaction) -> OwnSignal? {
        guard transaction.type == .chat, transaction.senderPublicKey == keyPair.publicKey,
            transaction.recipientId == service.address,
            let height = transaction.height, height > 0, let chat = transaction.chat, chat.type == .signal,
            let id = transaction.id ?? (try? transaction.computedID()),
            let plaintext = try? chatKey.open(chat), let signal = try? service.kind.signal(plaintext: plaintext)
        else { return nil }
        return OwnSignal(id: id, height: height, timestamp: transaction.timestamp, signal: signal)
    }

    /// Brings every attempt that may still land up to date: found in a kept signal or a block
    /// (confirmed), in a pool (accepted), or absent from the nodes long enough to be dead.
    func refreshAttempts(of groups: [[Intent]], view: ChainView) async throws(OutboxError) -> ChainView {
        let onChain = Dictionary(view.signals.map { ($0.id, $0.height) }, uniquingKeysWith: max)
        var confirmedHere: [OwnSignal] = []
        for attempt in groups.joined().flatMap(\.liveAttempts) {
            if let height = onChain[attempt.id] {
                try await store.setOutcome(.confirmed(height: height), attempt: attempt.id)
                continue
            }
            switch try await reading({ () throws(NodeError) in try await chain.locate(attempt.id) }) {
            case .confirmed(let transaction):
                guard let signal = ownSignal(transaction) else { continue }
                confirmedHere.append(signal)
                try await store.setOutcome(.confirmed(height: signal.height), attempt: attempt.id)
            case .unconfirmed, .queued:
                if attempt.outcome == .recorded { try await store.setOutcome(.accepted, attempt: attempt.id) }
            case .notFound:
                let (dueAt, overflow) = attempt.sentHeight.addingReportingOverflow(configuration.absentAfterBlocks)
                if !overflow, view.height >= dueAt {
                    log.log(
                        .info,
                        "attempt \(attempt.id) was not found on the nodes \(configuration.absentAfterBlocks) blocks after it was sent: it cannot land"
                    )
                    try await store.setOutcome(.absent, attempt: attempt.id)
                }
            }
        }
        guard !confirmedHere.isEmpty else { return view }
        try await store.saveOwnSignals(confirmedHere, cursor: 0, scope: scope)
        return ChainView(height: view.height, signals: try await store.ownSignals(scope: scope))
    }

    /// What the nodes answer, their failure the outbox's.
    private func reading<T>(_ body: () async throws(NodeError) -> T) async throws(OutboxError) -> T {
        do { return try await body() } catch { throw .network(error) }
    }
}

extension Outbox {
    /// The chain state folded from the signals kept in the store, with no network.
    package func keptChainState() async throws(OutboxError) -> AccountChainState {
        fold.account(of: try await store.ownSignals(scope: scope))
    }

    package func keptSignals() async throws(OutboxError) -> [OwnSignal] { try await store.ownSignals(scope: scope) }

    /// Keeps signals as if read from the chain (benchmarks and tests fill a store this way).
    package func keep(_ signals: [OwnSignal], cursor: Int64) async throws(OutboxError) {
        try await store.saveOwnSignals(signals, cursor: cursor, scope: scope)
    }
}
