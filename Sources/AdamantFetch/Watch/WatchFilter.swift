import AdamantCore
import AdamantPush

/// Which listed transactions notify: confirmed, incoming (to this account, from another),
/// transfers and chats but never signals, each id once; in block order.
enum WatchFilter {
    struct Candidate: Sendable {
        let id: TransactionID
        let transaction: Transaction
        /// The sender's address, derived from its key once here (a SHA-256) for the showing too.
        let sender: Address

        /// The id and block the log keeps (only confirmed transactions notify).
        var watched: WatchedTransaction { WatchedTransaction(id: id, height: transaction.height ?? 0) }
    }

    static func notifiable(_ page: [Transaction], for account: Address) -> [Candidate] {
        var seen = Set<TransactionID>()
        var candidates: [Candidate] = []
        for transaction in page {
            guard let sender = notifyingSender(transaction, account) else { continue }
            // The client verified the reported id; a row without one gets it computed.
            guard let id = transaction.id ?? (try? transaction.computedID()), seen.insert(id).inserted else { continue }
            candidates.append(Candidate(id: id, transaction: transaction, sender: sender))
        }
        // Stable: the node's order within a block.
        return candidates.enumerated().sorted { ($0.element.transaction.height ?? 0, $0.offset) < ($1.element.transaction.height ?? 0, $1.offset) }
            .map(\.element)
    }

    /// The sender of a transaction that notifies, nil for one that does not.
    private static func notifyingSender(_ transaction: Transaction, _ account: Address) -> Address? {
        guard transaction.height != nil, transaction.recipientId == account else { return nil }
        switch transaction.type {
        // A transfer's signed bytes hold no asset, so one a node hangs on it means nothing and
        // must not hide the transfer.
        case .transfer: break
        case .chat: guard let chat = transaction.chat, chat.type != .signal else { return nil }
        default: return nil
        }
        let sender = transaction.senderPublicKey.address
        return sender != account ? sender : nil
    }
}
