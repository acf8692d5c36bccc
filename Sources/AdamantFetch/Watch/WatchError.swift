public import AdamantCore
public import AdamantNodes
public import AdamantStore

/// Why `watch` stopped other than by being cancelled.
public enum WatchError: Error, Sendable, CustomStringConvertible {
    /// At the start, no node could be used (later, failures are retried): each node's report.
    case noUsableNode(NodeError)
    /// The home's log, which keeps the cursor and what was shown, failed.
    case store(StoreError)
    /// Another watch of this account runs on this home (who, as it says), or its lease
    /// cannot be taken.
    case leaseRefused(WatchLease.Refusal)
    /// The watch was asked to start past the highest block any usable node has.
    case aheadOfChain(height: Int64, tip: Int64)
    /// The handler could not show this notification: it and the rest of its page stay
    /// unshown, for the next start.
    case notHandedOver(TransactionID, HandOverFailure)

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .noUsableNode(let error): error.description
        case .store(let error): error.description
        case .leaseRefused(.held(let holder)): "another watch of this account runs on this home: \(holder)"
        case .leaseRefused(.unavailable(let path, let reason)): "the watch's lease \(path) cannot be taken: \(reason)"
        case .aheadOfChain(let height, let tip): "block \(height) is past the chain's tip (block \(tip))"
        case .notHandedOver(let id, let failure): "transaction \(id) could not be shown: \(failure)"
        }
    }
}

/// Where a watch starts.
public enum WatchStart: Sendable, Hashable {
    /// Where the last watch of this account stopped; the first one starts at the chain's
    /// current height, so history is not replayed.
    case resume
    /// Blocks at or above this height, whatever the kept cursor says; no higher than the
    /// chain's tip.
    case height(Int64)
}

/// Why a watch's handler could not show a notification (its output cannot be written, its
/// hook cannot be started): the watch stops without marking it shown.
public enum HandOverFailure: Error, Sendable, CustomStringConvertible {
    /// The reader of `Notifications` stopped asking for the next one.
    case readerStopped
    /// The handler's own failure, as it threw it: this library knows nothing of the outputs
    /// a handler writes to.
    case handler(any Error)

    /// What failed, in a phrase.
    public var description: String {
        switch self {
        case .readerStopped: "the reader of the notifications stopped"
        case .handler(let error): "\(error)"
        }
    }
}
