import AdamantCore
import AdamantNodes
import AdamantStore

/// The node listings `watch` reads for one account. Nodes 0.10 and newer give chats and
/// transfers in one (`includeDirectTransfers`); older ones list transfers only through
/// `/api/transactions`. Each listing keeps its own cursor.
enum WatchListing: String, Sendable, CaseIterable {
    /// `/api/chats/get?isIn=…`, with transfers when every usable node is 0.10+.
    case chats
    /// `/api/transactions` type 0 to the account: for pools with a node older than 0.10.
    case transfers

    /// The stream the log keeps this listing's cursor and page under.
    var stream: WatchStream {
        switch self {
        case .chats: .chats
        case .transfers: .transfers
        }
    }

    /// What to read now: a node older than 0.10 ignores `includeDirectTransfers` silently, so
    /// one such node in the pool is enough to read transfers on their own.
    static func current(in pool: NodePool) -> (listings: [WatchListing], chatsWithTransfers: Bool) {
        let usable = pool.reports.filter(\.health.isUsable)
        let allNew = !usable.isEmpty && usable.allSatisfy { ($0.status?.version ?? .minimumSupported) >= .v0_10 }
        return allNew ? ([.chats], true) : ([.chats, .transfers], false)
    }

    /// One page at `cursor`, oldest first, every transaction verified by the client.
    func page(
        at cursor: WatchCursor, for account: Address, limit: Int, chatsWithTransfers: Bool, client: NodeClient
    ) async throws(NodeError) -> [Transaction] {
        switch self {
        case .chats:
            // `fromHeight` is exclusive on chats: height - 1 reads the cursor's block too.
            let query = ChatQuery(
                party: .either(account), afterHeight: cursor.height > 1 ? cursor.height - 1 : nil, limit: limit,
                offset: cursor.skip, order: .oldestFirst, includeDirectTransfers: chatsWithTransfers)
            return try await client.chats(query).transactions
        case .transfers:
            let query = TransactionQuery(
                types: [.transfer], recipient: account, fromHeight: max(cursor.height, 1), limit: limit,
                offset: cursor.skip,
                order: .oldestFirst)
            return try await client.transactions(query).transactions
        }
    }
}
