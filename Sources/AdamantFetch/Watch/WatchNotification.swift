public import AdamantCore

/// One notification a watch hands over: what a fetch would show, and how the watch found it.
public struct WatchNotification: Sendable {
    /// How a watch came to a transaction.
    public enum Via: String, Sendable {
        /// A node's socket announced it as the node admitted it, before any block held it.
        case socket
        /// A listing of the account's transactions in blocks found it.
        case poll
    }

    /// Verified, decrypted and rendered, as `Fetcher.show` gives it.
    public var result: FetchResult
    /// The socket or the listing.
    public var via: Via
    /// The watched account it is for.
    public var account: Address

    /// Whether a block held it when it was shown (never for one from a socket).
    public var confirmed: Bool { result.transaction?.height != nil }

    /// A notification for `account`, `via` the socket or a listing.
    public init(result: FetchResult, via: Via, account: Address) {
        self.result = result
        self.via = via
        self.account = account
    }
}
