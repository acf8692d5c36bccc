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
        try await lookUp(id, at: "/api/transactions/get", returnAsset: true, until: callDeadline)
    }

    /// A transaction in the node's unconfirmed pool.
    public func unconfirmedTransaction(_ id: TransactionID) async throws(NodeError) -> Transaction? {
        try await lookUp(id, at: "/api/transactions/unconfirmed/get", until: callDeadline)
    }

    /// A transaction in the node's queue (received, not yet unconfirmed).
    public func queuedTransaction(_ id: TransactionID) async throws(NodeError) -> Transaction? {
        try await lookUp(id, at: "/api/transactions/queued/get", until: callDeadline)
    }

    /// Queue, then unconfirmed pool, then chain, within one deadline: how an ambiguous
    /// submission is resolved (docs/node-api.md §2).
    public func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation {
        // In the order a transaction moves (queue, then pool, then block): one that moves on
        // while it is looked for is met again further on, never missed between two stages.
        let deadline = pool.clock.now + self.deadline
        if let found = try await lookUp(id, at: "/api/transactions/queued/get", until: deadline) {
            return .queued(found)
        }
        if let found = try await lookUp(id, at: "/api/transactions/unconfirmed/get", until: deadline) {
            return .unconfirmed(found)
        }
        if let found = try await lookUp(id, at: "/api/transactions/get", returnAsset: true, until: deadline) {
            return .confirmed(found)
        }
        return .notFound
    }

    /// What the node's pool holds sent to `address`, each checked by `verify`, once each, in
    /// the order the node took them: its unconfirmed transactions, then its queue. These
    /// two lists exist on every node version and hold transfers too, where a chat listing's
    /// `returnUnconfirmed` (0.10+) merges chats only.
    public func pooled(for address: Address) async throws(NodeError) -> [Transaction] {
        let filter = [(name: "address", value: address.description)]
        // In the order a transaction moves: one that moves on while it is read is met again.
        let queued = try await list("/api/transactions/queued", filter).transactions
        let unconfirmed = try await list("/api/transactions/unconfirmed", filter).transactions
        var seen = Set<String>()
        return (unconfirmed + queued).filter { transaction in
            guard let id = transaction.id?.description else { return true }
            return seen.insert(id).inserted
        }
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
        let query = [(name: "id", value: id.description)] + (returnAsset ? [(name: "returnAsset", value: "1")] : [])
        return try await get(
            path, query, until: deadline, ifAbsent: (["Transaction not found"], nil), reading: Self.readFound
        ) { [verify] (transaction: Transaction) in
            try verify(transaction)
            let computed = try transaction.computedID()
            guard computed == id else {
                throw AnswerRejection(description: "asked for transaction \(id), got \(computed)")
            }
            return transaction
        }
    }

    private func list(_ path: String, _ query: [(name: String, value: String)]) async throws(NodeError)
        -> TransactionPage
    {
        try await get(path, query, until: callDeadline, reading: Self.readPage) { [verify] (page: TransactionPage) in
            // On every core: checking the signatures is most of what reading a page costs.
            let failures = await page.transactions.concurrentMap { transaction -> (any Error)? in
                do { try verify(transaction) } catch { return error }
                return nil
            }
            if let first = failures.lazy.compactMap({ $0 }).first { throw first }
            return page
        }
    }

    /// `{"transaction": {…}}`
    @Sendable package static func readFound(_ reader: inout JSONReader) throws(JSONReadError) -> Transaction {
        var found: Transaction?
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            case "transaction":
                guard found == nil else { throw reader.twice }
                found = try Transaction(json: &reader)
            default: try reader.skipValue()
            }
        }
        guard let found else { throw reader.missing("transaction") }
        return found
    }

    private enum PageKey: Int { case transactions, count }

    /// `{"transactions": […], "count": N}`, the count a number or a string (node versions differ).
    @Sendable package static func readPage(_ reader: inout JSONReader) throws(JSONReadError) -> TransactionPage {
        var transactions: [Transaction]?
        var count: Int?
        var seen = SeenKeys<PageKey>()
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            case "transactions":
                try seen.first(.transactions, reader)
                var page: [Transaction] = []
                try reader.readArray { reader throws(JSONReadError) in page.append(try Transaction(json: &reader)) }
                transactions = page
            case "count":
                try seen.first(.count, reader)
                count = try reader.readOptionalIntegerOrString()
                if let count, count < 0 { throw reader.failure("\(reader.here): \(count) is not a count") }
            default: try reader.skipValue()
            }
        }
        guard let transactions else { throw reader.missing("transactions") }
        return TransactionPage(transactions: transactions, count: count)
    }
}
