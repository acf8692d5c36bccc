public import AdamantPush

/// Why `watch` stopped other than by being cancelled.
public enum WatchError: Error, Sendable, CustomStringConvertible {
    /// At the start, no node could be used (later, failures are retried).
    case noUsableNode(String)
    /// The home's log, which keeps the cursor and what was shown, failed.
    case store(OutboxError)

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .noUsableNode(let detail): detail
        case .store(let error): "the notification log failed: \(error)"
        }
    }
}

/// Where a watch starts.
public enum WatchStart: Sendable, Hashable {
    /// Where the last watch of this account stopped; the first one starts at the chain's
    /// current height, so history is not replayed.
    case resume
    /// Blocks at or above this height, whatever the kept cursor says.
    case height(Int64)
}
