public import AdamantCore

/// The node a new transaction is meant for, and its clock, so the transaction is stamped
/// with the time that node will judge it by.
public struct SubmissionTarget: Sendable, Hashable {
    /// The node to send to first.
    public var node: NodeURL
    /// That node's clock, measured at its last status check.
    public var clock: NodeClock
    /// 0.10+ nodes read `timestampMs`; older ones might trip on an unknown field.
    public var acceptsTimestampMs: Bool

    /// `(timestamp, timestampMs)` for a transaction signed now, a little in the node's past.
    public func stamp(localUnixMillis: Int64) -> (timestamp: Int32, timestampMs: Int64?) {
        let stamp = clock.stamp(localUnixMillis: localUnixMillis)
        return (stamp.timestamp, acceptsTimestampMs ? stamp.timestampMs : nil)
    }
}

extension NodeClient {
    /// The best usable node, to stamp and sign for.
    public func submissionTarget() async throws(NodeError) -> SubmissionTarget {
        try await submissionTarget(until: callDeadline)
    }

    /// Sends a signed transaction; see `NodePool.broadcast` for when its bytes may go to a
    /// second node. Throws a `TransactionError` when it cannot be encoded, or a `NodeError`
    /// when nothing was sent; otherwise the result says what the nodes made of it.
    ///
    /// - Parameters:
    ///   - transaction: signed, by `Transaction.sign(with:)` or one of its factories.
    ///   - target: the node it was stamped for, asked first.
    ///   - avoiding: nodes not to send to, e.g. after one answered `.tryElsewhere`.
    ///   - isResend: an earlier attempt for the same intent may have landed.
    public func submit(
        _ transaction: Transaction, target: NodeURL? = nil, avoiding: Set<NodeURL> = [], isResend: Bool = false
    ) async throws -> SubmitResult {
        try await submit(transaction, target: target, avoiding: avoiding, isResend: isResend, until: callDeadline)
    }

    /// Signs a chat transaction for the best node's clock, lets `willSend` record it (its id
    /// exists from here on), then submits it.
    public func submitChat(
        _ asset: ChatAsset, amount: Int64 = 0, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool = false,
        willSend: @Sendable (Transaction) async throws -> Void = { _ in }
    ) async throws -> SubmitResult {
        try await signAndSubmit(isResend: isResend, willSend: willSend) { stamp in
            try Transaction.chat(
                asset, amount: amount, to: recipient, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs,
                signedBy: keyPair)
        }
    }

    /// Signs an ADM transfer for the best node's clock, lets `willSend` record it, then submits it.
    public func submitTransfer(
        amount: Int64, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool = false,
        willSend: @Sendable (Transaction) async throws -> Void = { _ in }
    ) async throws -> SubmitResult {
        try await signAndSubmit(isResend: isResend, willSend: willSend) { stamp in
            try Transaction.transfer(
                amount: amount, to: recipient, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs,
                signedBy: keyPair)
        }
    }

    private func signAndSubmit(
        isResend: Bool, willSend: @Sendable (Transaction) async throws -> Void,
        sign: ((timestamp: Int32, timestampMs: Int64?)) throws -> Transaction
    ) async throws -> SubmitResult {
        let deadline = pool.clock.now + self.deadline
        let target = try await submissionTarget(until: deadline)
        let transaction = try sign(target.stamp(localUnixMillis: pool.localUnixMillis))
        try await willSend(transaction)
        return try await submit(transaction, target: target.node, avoiding: [], isResend: isResend, until: deadline)
    }

    /// The best node whose clock agrees with the others'.
    private func submissionTarget(until deadline: AnyClock.Instant) async throws(NodeError) -> SubmissionTarget {
        let nodes = try await pool.usableNodes(forStamping: true, until: deadline)
        guard let best = nodes.first, let clock = best.clock else { throw .noUsableNode(pool.reports) }
        return SubmissionTarget(
            node: best.url, clock: clock, acceptsTimestampMs: best.status.map { $0.version >= .v0_10 } ?? false)
    }

    private func submit(
        _ transaction: Transaction, target: NodeURL?, avoiding: Set<NodeURL>, isResend: Bool,
        until deadline: AnyClock.Instant
    ) async throws -> SubmitResult {
        let id = try transaction.computedID()
        let body = try transaction.submissionBody()
        return try await pool.broadcast(
            transaction, id: id, body: body, target: target, avoiding: avoiding, isResend: isResend, deadline: deadline)
    }
}
