public import AdamantCore

/// A page `watch` recorded and is handing over, notification after notification, in order.
public final class WatchedPage {
    private let log: NotificationLog
    private let ids: [TransactionID]
    private let serial: Int64
    private let lease: WatchLease
    /// The page's transactions that were shown before, and are not to be handed over.
    public let shownBefore: Set<TransactionID>
    private let from: WatchCursor
    /// The account as the log keeps it, made once for the page rather than once a notification.
    private let account: String
    private let stream: WatchStream
    private var handedOver = 0

    init(
        log: NotificationLog, ids: [TransactionID], serial: Int64, lease: WatchLease,
        shownBefore: Set<TransactionID> = [], from: WatchCursor, account: Address, stream: WatchStream
    ) {
        (self.log, self.ids, self.from, self.account, self.stream) = (log, ids, from, account.description, stream)
        (self.serial, self.lease, self.shownBefore) = (serial, lease, shownBefore)
    }

    /// The next of the page's notifications was handed over: counted in the lease before this
    /// returns, so a process killed from here on does not hand it over again (unless the
    /// lease's file could not be written, which is not an error: it would come again, never
    /// be lost).
    public func handedOverNext() {
        guard handedOver < ids.count else { return }
        handedOver += 1
        lease.handedOver(handedOver, ofPage: serial, stream: stream)
    }

    /// The watch stops before the page's end: the notifications not handed over are taken out
    /// of the log again and the cursor put back before the page.
    public func takeBackTheRest() async throws(StoreError) {
        try await log.takeBack(Array(ids[handedOver...]), account: account, cursor: from, stream: stream)
    }
}

/// A transaction `watch` hands over: its id, and the block it is in.
public struct WatchedTransaction: Sendable, Hashable {
    /// The transaction's id.
    public var id: TransactionID
    /// Its block's height.
    public var height: Int64

    /// The transaction `id` in block `height`.
    public init(id: TransactionID, height: Int64) {
        self.id = id
        self.height = height
    }
}

/// Where `watch` resumes one listing: blocks at or above `height`, after skipping the first
/// `skip` transactions a node lists there, oldest first.
public struct WatchCursor: Sendable, Hashable {
    /// The lowest block height still to read.
    public var height: Int64
    /// Transactions at `height` already read, in the node's order.
    public var skip: Int

    /// A cursor at `height`, `skip` transactions in.
    public init(height: Int64, skip: Int = 0) {
        self.height = height
        self.skip = skip
    }
}
