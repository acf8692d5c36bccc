import AdamantCore

extension Outbox {
    /// Makes the outbox hold, again, what the chain says the user last wanted, even after the
    /// local state was lost: a token whose signals this home has no intent for gets one equal
    /// to its last signal (so an at-risk add is sent once more after the gap), and failed
    /// intents are tried again. The caller then flushes.
    ///
    /// `resend` names tokens (devices, for adamant-ns: the keys `tokensOnChain` gives) whose
    /// last signal is on chain but evidently not held by the service (pushes stopped while it is
    /// registered, or keep arriving after its remove): each gets a must-send intent equal to
    /// that signal, sent although the chain holds it.
    public func repair(resend: Set<String> = []) async throws(OutboxError) -> [Intent] {
        let view = try await syncChain()
        let known = Set(
            try await store.intents(scope: scope, includeSettled: true).map { scope.tag(of: $0[0].signal) })
        var made: [Intent] = []
        for (key, state) in fold.states(of: view.signals).sorted(by: { $0.key < $1.key }) {
            guard let last = state.last?.signal else { continue }
            if resend.contains(key) {
                made.append(try await store.addIntent(last, scope: scope, now: wallClock.unixMillis(), mustSend: true))
            } else if !known.contains(scope.tag(key)) {
                made.append(try await store.addIntent(last, scope: scope, now: wallClock.unixMillis()))
            }
        }
        for group in try await store.intents(scope: scope, includeSettled: true) {
            guard let newest = group.last, case .failed = newest.state else { continue }
            try await store.update(.reopen(intent: newest.id), now: wallClock.unixMillis())
        }
        return made
    }
}

extension Outbox {
    /// Every token (for adamant-ns, every device) this account ever signalled to the service,
    /// as the chain leaves it: read from the nodes first, unless `refresh` is false (a `status`
    /// pass has just done so).
    public func tokensOnChain(refresh: Bool = true) async throws(OutboxError) -> [String: TokenState] {
        fold.states(of: refresh ? try await syncChain().signals : try await store.ownSignals(scope: scope))
    }

    /// The store's file in a home, to tell whether a home has an outbox without making one.
    public static let storeFileName = OutboxStore.fileName
}
