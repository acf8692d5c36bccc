public import AdamantCore

extension NodeClient {
    /// The KVS values `owner` stored under `key`, newest first (`/api/states/get`, at most
    /// 100). Each is checked by `verify` and must be a type 9 of that owner under that key:
    /// a node answering with anything else is not believed.
    public func states(of owner: Address, key: String, limit: Int = 1) async throws(NodeError) -> [Transaction] {
        let query: [(name: String, value: String)] = [
            ("senderId", owner.description), ("key", key), ("orderBy", "timestamp:desc"),
            ("limit", String(min(max(limit, 1), 100))),
        ]
        return try await get("/api/states/get", query, until: callDeadline, reading: Self.readPage) {
            [verify] (page: TransactionPage) in
            for transaction in page.transactions {
                try verify(transaction)
                guard transaction.type == .state, let state = transaction.state, state.key == key,
                    transaction.senderPublicKey.address == owner
                else {
                    throw AnswerRejection(
                        description:
                            "asked for the values of \(owner) under \(AnswerText.quoted(key)), got another transaction")
                }
            }
            // "Newest first" is the node's word; the client relies on it, so sorts again.
            return page.transactions.enumerated()
                .sorted { ($0.element.timestamp, -$0.offset) > ($1.element.timestamp, -$1.offset) }
                .map(\.element)
        }
    }

    /// Signs `value` under `key` for the best node's clock, lets `willSend` record it, then
    /// submits it to `/api/states/store`. Encrypt private values first (`KVSKey.seal`).
    public func submitState(
        key: String, value: String, type: Int32 = 0, signedBy keyPair: KeyPair, isResend: Bool = false,
        willSend: @Sendable (Transaction) async throws -> Void = { _ in }
    ) async throws -> SubmitResult {
        let target = try await submissionTarget()
        let stamp = target.stamp(localUnixMillis: pool.localUnixMillis)
        let transaction = try Transaction.state(
            key: key, value: value, type: type, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs,
            signedBy: keyPair)
        try await willSend(transaction)
        return try await submit(transaction, target: target.node, isResend: isResend)
    }
}
