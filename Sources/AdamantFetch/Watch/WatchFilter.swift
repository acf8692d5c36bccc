import AdamantCore

/// Which listed transactions notify: confirmed, incoming (to this account, from another),
/// transfers and chats but never signals, each id once; in block order.
enum WatchFilter {
    struct Candidate: Sendable {
        let id: TransactionID
        let transaction: Transaction
    }

    static func notifiable(_ page: [Transaction], for account: Address) -> [Candidate] {
        var seen = Set<TransactionID>()
        var candidates: [Candidate] = []
        for transaction in page where notifies(transaction, account) {
            // The client verified the reported id; a row without one gets it computed.
            guard let id = transaction.id ?? (try? transaction.computedID()), seen.insert(id).inserted else { continue }
            candidates.append(Candidate(id: id, transaction: transaction))
        }
        // Stable: the node's order within a block.
        return candidates.enumerated().sorted { ($0.element.transaction.height ?? 0, $0.offset) < ($1.element.transaction.height ?? 0, $1.offset) }
            .map(\.element)
    }

    private static func notifies(_ transaction: Transaction, _ account: Address) -> Bool {
        guard transaction.height != nil, transaction.recipientId == account, transaction.senderPublicKey.address != account else { return false }
        switch transaction.type {
        // A transfer's signed bytes hold no asset, so one a node hangs on it means nothing and
        // must not hide the transfer.
        case .transfer: return true
        case .chat: return transaction.chat.map { $0.type != .signal } ?? false
        default: return false
        }
    }
}
