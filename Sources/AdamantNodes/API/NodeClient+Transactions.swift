public import AdamantCore

/// Where a transaction is, as far as the asked node knows.
public enum TransactionLocation: Sendable, Hashable {
    /// In a block.
    case confirmed(Transaction)
    /// In the node's pool, applied to unconfirmed balances, waiting for a block.
    case unconfirmed(Transaction)
    /// In the node's pool, just received.
    case queued(Transaction)
    /// Neither in a block nor in the pool.
    case notFound
}

/// A page of a transaction list.
public struct TransactionPage: Sendable, Hashable {
    /// The transactions, each passed through the client's `verify`.
    public var transactions: [Transaction]
    /// The total the node reports for the query, when it does.
    public var count: Int?
}

extension NodeClient {
    /// A confirmed transaction with its asset (`returnAsset=1`), checked by `verify` and
    /// against `id`; nil when the node has no such transaction in a block.
    public func transaction(_ id: TransactionID) async throws(NodeError) -> Transaction? {
        try await lookUp(id, at: "/api/transactions/get", returnAsset: true, until: pool.clock.now + deadline)
    }

    /// A transaction in the node's unconfirmed pool.
    public func unconfirmedTransaction(_ id: TransactionID) async throws(NodeError) -> Transaction? {
        try await lookUp(id, at: "/api/transactions/unconfirmed/get", until: pool.clock.now + deadline)
    }

    /// A transaction in the node's queue (received, not yet unconfirmed).
    public func queuedTransaction(_ id: TransactionID) async throws(NodeError) -> Transaction? {
        try await lookUp(id, at: "/api/transactions/queued/get", until: pool.clock.now + deadline)
    }

    /// Queue, then unconfirmed pool, then chain, within one deadline: how an ambiguous
    /// submission is resolved (node-api.md §2).
    public func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation {
        // In the order a transaction moves (queue, then pool, then block): one that moves on
        // while it is looked for is met again further on, never missed between two stages.
        let deadline = pool.clock.now + self.deadline
        if let found = try await lookUp(id, at: "/api/transactions/queued/get", until: deadline) { return .queued(found) }
        if let found = try await lookUp(id, at: "/api/transactions/unconfirmed/get", until: deadline) { return .unconfirmed(found) }
        if let found = try await lookUp(id, at: "/api/transactions/get", returnAsset: true, until: deadline) { return .confirmed(found) }
        return .notFound
    }

    /// `/api/chats/get`, every transaction checked by `verify`.
    public func chats(_ query: ChatQuery) async throws(NodeError) -> TransactionPage {
        try await list("/api/chats/get", query.queryItems)
    }

    /// `/api/transactions` with assets, every transaction checked by `verify`.
    public func transactions(_ query: TransactionQuery) async throws(NodeError) -> TransactionPage {
        try await list("/api/transactions", query.queryItems)
    }

    private func lookUp(
        _ id: TransactionID, at path: String, returnAsset: Bool = false, until deadline: AnyClock.Instant
    ) async throws(NodeError) -> Transaction? {
        struct Body: Decodable { var transaction: Transaction }
        let query = [(name: "id", value: id.description)] + (returnAsset ? [(name: "returnAsset", value: "1")] : [])
        return try await get(path, query, until: deadline, ifAbsent: (["Transaction not found"], nil)) { [verify] (body: Body) in
            try verify(body.transaction)
            let computed = try body.transaction.computedID()
            guard computed == id else { throw AnswerRejection(description: "asked for transaction \(id), got \(computed)") }
            return body.transaction
        }
    }

    private func list(_ path: String, _ query: [(name: String, value: String)]) async throws(NodeError) -> TransactionPage {
        try await get(path, query, until: pool.clock.now + deadline) { [verify] (body: ListBody) in
            for transaction in body.transactions { try verify(transaction) }
            return TransactionPage(transactions: body.transactions, count: body.count)
        }
    }
}

private struct ListBody: Decodable {
    var transactions: [Transaction]
    /// Some nodes send it as a string.
    var count: Int?

    private enum Keys: String, CodingKey { case transactions, count }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        transactions = try container.decode([Transaction].self, forKey: .transactions)
        count = try container.decodeIntegerOrStringIfPresent(Int.self, forKey: .count)
        if let count, count < 0 {
            throw DecodingError.dataCorruptedError(forKey: .count, in: container, debugDescription: "\(count) is not a count")
        }
    }
}
