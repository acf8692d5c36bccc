import AdamantCore
import AdamantNodes
import Synchronization

extension Outbox {
    /// Signs and sends `action` for `intent` while holding its key's lease, recording the
    /// attempt before the bytes leave. Returns the balance if it was too low to send.
    func send(
        _ intent: Intent, action: PushAction, chain chainState: TokenState, account: AccountActivity, height: Int64
    ) async throws -> ADMAmount? {
        let tag = scope.tag(of: intent.signal)
        let now = wallClock.unixMillis()
        guard
            try await store.acquireLease(
                tag: tag, scope: scope, holder: holder, now: now, expiresAt: now &+ configuration.leaseMillis)
        else {
            log.log(.info, "another process is sending for intent \(intent.id); leaving it to that one")
            return nil
        }
        do {
            let shortOf = try await sendHoldingLease(
                intent, action: action, chain: chainState, account: account, height: height, tag: tag)
            try await store.releaseLease(tag: tag, scope: scope, holder: holder)
            return shortOf
        } catch {
            try? await store.releaseLease(tag: tag, scope: scope, holder: holder)
            throw error
        }
    }

    private func sendHoldingLease(
        _ intent: Intent, action: PushAction, chain chainState: TokenState, account: AccountActivity, height: Int64,
        tag: [UInt8]
    ) async throws -> ADMAmount? {
        // Decide again under the lease: another process may have sent or superseded meanwhile.
        let fresh =
            try await store.intents(scope: scope, includeSettled: false).first { scope.tag(of: $0[0].signal) == tag }
            ?? []
        let again = planner.plan(
            intents: fresh, chain: chainState, account: account, height: height, now: wallClock.unixMillis())
        guard again.contains(.send(intent: intent.id, action: action)) else {
            return nil
        }
        // A remove names the provider the token was registered with (an add over another
        // provider removes that one first).
        let provider =
            action == intent.action
            ? intent.signal.provider : (chainState.last?.signal.provider ?? intent.signal.provider)
        // adamant-ns names the device in every signal; the ANS's remove names only the token.
        let signal = try PushSignal(
            token: intent.signal.token, provider: provider, action: action,
            deviceId: action == .add || service.kind == .ns ? intent.signal.deviceId : nil)
        try service.check(signal)
        let asset = chatKey.seal(service.kind.plaintext(signal), type: .signal)

        let fee = Fee.message(ciphertextLength: asset.message.count)
        let balance = try await chain.spendableBalance(of: scope.account)
        guard balance.units >= fee else {
            log.log(
                .warning,
                "intent \(intent.id) waits for funds: a signal costs \(ADMAmount(units: fee)) ADM, the balance is \(balance) ADM"
            )
            try await store.update(.state(intent: intent.id, .waitingForFunds), now: wallClock.unixMillis())
            return balance
        }

        let recorded = Mutex<TransactionID?>(nil)
        let sent: SentSignal
        do {
            sent = try await chain.send(
                asset, to: service.address, signedBy: keyPair, isResend: !intent.attempts.isEmpty
            ) { transaction in
                let id = try transaction.computedID()
                let attempt = Attempt(
                    id: id, action: action, node: "", timestamp: transaction.timestamp,
                    sentAt: self.wallClock.unixMillis(), sentHeight: height,
                    outcome: .recorded)
                self.configuration.checkpoint?(.beforeRecord)
                try await self.store.recordAttempt(attempt, intent: intent.id)
                recorded.withLock { $0 = id }
                self.configuration.checkpoint?(.afterRecord)
            }
        } catch let error as NodeError {
            // Nothing was sent: the recorded attempt can never land, and the intent backs off.
            if let id = recorded.withLock({ $0 }) { try await store.setOutcome(.absent, attempt: id) }
            try await backOff(intent)
            throw error
        }
        configuration.checkpoint?(.afterBroadcast)
        try await record(sent, for: intent)
        return nil
    }

    /// Stores what the nodes made of a send and what it means for the intent.
    private func record(_ sent: SentSignal, for intent: Intent) async throws {
        try await store.setNode(sent.node ?? "", attempt: sent.id)
        // More than one node received the bytes only after silence: an earlier one may hold them.
        let mayBeElsewhere = sent.nodesReached > 1
        switch sent.outcome {
        case .accepted, .applied:
            log.log(.info, "signal \(sent.id) for intent \(intent.id) is in a pool of \(sent.node ?? "a node")")
            try await store.setOutcome(.accepted, attempt: sent.id)
        case .ambiguous(let message):
            log.log(
                .info,
                "signal \(sent.id) for intent \(intent.id) may or may not have landed (\(message)): it will be looked up"
            )
            try await store.setOutcome(.ambiguous, attempt: sent.id)
        case .tryElsewhere(let message), .clock(let message):
            log.log(.info, "signal \(sent.id) for intent \(intent.id) was not taken (\(message)): trying again later")
            try await store.setOutcome(mayBeElsewhere ? .ambiguous : .refused(message), attempt: sent.id)
            try await backOff(intent)
        case .rejected(let message):
            try await store.setOutcome(mayBeElsewhere ? .ambiguous : .refused(message), attempt: sent.id)
            if message.contains(NodeErrorClass.insufficientBalanceMessage) {
                try await store.update(.state(intent: intent.id, .waitingForFunds), now: wallClock.unixMillis())
            } else if !mayBeElsewhere {
                log.log(.warning, "intent \(intent.id) was refused for good: \(message)")
                try await store.update(.state(intent: intent.id, .failed(message)), now: wallClock.unixMillis())
            }
        }
    }

    private func backOff(_ intent: Intent) async throws(OutboxError) {
        let delay = configuration.policy.backoff(retries: intent.retries)
        let jitter = self.jitter.withLock { Int64.random(in: 0...(delay / 4), using: &$0) }
        try await store.update(
            .backOff(intent: intent.id, notBefore: wallClock.unixMillis() &+ delay &+ jitter),
            now: wallClock.unixMillis())
    }
}
