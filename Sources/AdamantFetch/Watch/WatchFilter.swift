import AdamantCore
import AdamantStore

/// Which listed transactions notify: confirmed, incoming (to this account, from another),
/// transfers and chats but never signals, each id once; in block order.
enum WatchFilter {
    struct Candidate: Sendable {
        /// The id and block, as the log keeps them.
        let watched: WatchedTransaction
        /// Where the transaction is in the page: a copy of it would retain each of its arrays.
        let index: Int
        /// The sender's address, derived from its key once here (a SHA-256) for the showing too.
        let sender: Address

        var id: TransactionID { watched.id }
    }

    static func notifiable(_ page: [Transaction], for account: Address) -> [Candidate] {
        var seen = Set<TransactionID>()
        var candidates: [Candidate] = []
        for (index, transaction) in page.enumerated() {
            guard let (sender, height) = notifyingSender(transaction, account) else { continue }
            // The client verified the reported id; a row without one gets it computed.
            guard let id = transaction.id ?? (try? transaction.computedID()), seen.insert(id).inserted else { continue }
            candidates.append(
                Candidate(watched: WatchedTransaction(id: id, height: height), index: index, sender: sender))
        }
        // Nodes list them in block order, as a rule: then there is nothing to sort (and copy).
        if zip(candidates, candidates.dropFirst()).allSatisfy({ $0.watched.height <= $1.watched.height }) {
            return candidates
        }
        // Stable: the node's order within a block.
        return candidates.enumerated().sorted {
            ($0.element.watched.height, $0.offset) < ($1.element.watched.height, $1.offset)
        }
        .map(\.element)
    }

    /// The sender and block of a confirmed transaction that notifies, nil for one that does not.
    private static func notifyingSender(_ transaction: Transaction, _ account: Address) -> (Address, height: Int64)? {
        guard let height = transaction.height, let sender = sender(ifNotifying: transaction, for: account) else {
            return nil
        }
        return (sender, height)
    }

    /// The sender of a transaction that notifies `account`, in a block or not yet: incoming,
    /// from another account, a transfer or a chat but never a signal.
    static func sender(ifNotifying transaction: Transaction, for account: Address) -> Address? {
        guard transaction.recipientId == account else { return nil }
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
