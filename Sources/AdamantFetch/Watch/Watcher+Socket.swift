import AdamantCore
import AdamantNodes
import AdamantStore

/// What the nodes' sockets and pools announce before a block holds it, handed over once.
extension Watcher {
    /// Shows what the nodes' pools hold for the account and was not shown, oldest first;
    /// false when stopped on the way. A pool that cannot be read is left to the sockets and
    /// the blocks.
    func readPool(_ scans: [WatchListing: WatchScan], _ deliver: Deliver, _ lease: WatchLease)
        async throws(WatchError) -> Bool
    {
        let account = await self.account
        let pooled: [Transaction]
        do { pooled = try await fetcher.client.pooled(for: account) } catch {
            if !Task.isCancelled {
                events.log(
                    .warning,
                    "watch: the nodes' pools cannot be read (\(error)); what waits there is shown from its block")
            }
            return !Task.isCancelled
        }
        let floor = Self.floor(scans, configuration)
        // By when they were signed; within a second, as the node took them.
        let ordered = pooled.enumerated().sorted { a, b in
            let (x, y) = (a.element, b.element)
            return (x.timestamp, x.timestampMs ?? 0, a.offset) < (y.timestamp, y.timestampMs ?? 0, b.offset)
        }
        for (_, transaction) in ordered {
            guard !Task.isCancelled else { return false }
            guard let id = transaction.id else { continue }
            try await handOverUnconfirmed(transaction, id: id, shownFrom: floor, deliver, lease)
        }
        return !Task.isCancelled
    }

    /// How far a transaction's time may be from this machine's: a node takes one signed up to
    /// half a second ahead of its clock, and the pool's nodes keep within 5 s of each other.
    static let clockMargin: Int64 = 30_000

    /// Where the listings read now, less the reread margin: a transaction still in a pool
    /// lands in no block below it.
    static func floor(_ scans: [WatchListing: WatchScan], _ configuration: Configuration) -> Int64 {
        (scans.values.map(\.cursor.height).min() ?? 0) - configuration.rereadBlocks
    }

    /// A transaction a node's socket announced, verified: shown unless it is not a
    /// notification for this account (dropped quietly) or was shown before.
    func handOverUnconfirmed(
        _ transaction: Transaction, id: TransactionID, shownFrom floor: Int64, _ deliver: Deliver, _ lease: WatchLease
    ) async throws(WatchError) {
        let account = await self.account
        guard let sender = WatchFilter.sender(ifNotifying: transaction, for: account) else { return }
        let known = try await logged { () throws(StoreError) in
            try await log.shown(pooled: [id], account: account, fromHeight: floor)
        }
        guard known.isEmpty else { return }
        let result = await fetcher.show(
            transaction, id: id, sender: sender, account: account,
            until: pool.clock.now + fetcher.configuration.deadline)
        guard !Task.isCancelled else { return }
        let page = try await logged { () throws(StoreError) in
            try await log.recordPooled(
                [id], account: account, at: pool.localUnixMillis, stream: .socket, lease: lease)
        }
        do throws(HandOverFailure) {
            try await deliver(WatchNotification(result: result, via: .socket, account: account))
        } catch {
            try await logged { () throws(StoreError) in try await page.takeBackTheRest() }
            throw .notHandedOver(id, error)
        }
        page.handedOverNext()
    }
}
