import AdamantCore
import AdamantNodes

/// What one account's watch waits on, in the order it comes: its own poll timers, and what
/// the shared sockets tell it (`WatchGroup` puts that in).
struct WatchInbox: Sendable {
    let wakes: AsyncStream<Watcher.Wake>
    let continuation: AsyncStream<Watcher.Wake>.Continuation

    init() { (wakes, continuation) = AsyncStream.makeStream() }
}

extension Watcher {
    /// What wakes the watch's one task.
    enum Wake: Sendable {
        /// Read the listings, and with `pool` the nodes' pools too.
        case pollDue(round: Int, pool: Bool)
        case socket(SocketNews)
    }
}

/// What the shared sockets tell one account's watch.
enum SocketNews: Sendable {
    /// `node`'s socket is subscribed: its events arrive from now on.
    case live(NodeURL)
    /// `node`'s socket ended; what it would have brought is the listings' to find.
    case down(NodeURL, SessionEnd)
    /// A transaction to this account that `node` admitted to its pool, verified.
    case admitted(Transaction, TransactionID, from: NodeURL)
}
