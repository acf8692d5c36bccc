import AdamantCore
import AdamantNodes
public import AdamantStore

/// Where a watch starts, and the point it resumes from.
extension Watcher {
    /// Takes back what a killed watch recorded and never handed over, checks the nodes and
    /// settles where the watch starts, keeping it as the cursor (and in `lease`, when given)
    /// so a restart begins there too. Returns that block height.
    @discardableResult
    public func begin(_ start: WatchStart, lease: WatchLease) async throws(WatchError) -> Int64 {
        let height = try await settleStart(start, lease: lease)
        await keepResumePoint(in: lease)
        return height
    }

    func settleStart(_ start: WatchStart, lease: WatchLease) async throws(WatchError) -> Int64 {
        for stream in WatchStream.allCases {
            try await logged { () throws(StoreError) in
                try await log.recoverInterruptedPage(account: account, stream: stream, lease: lease)
            }
        }
        let reports = await pool.checkHealth()
        guard let tip = reports.filter(\.health.isUsable).compactMap(\.status?.height).max() else {
            throw .noUsableNode(.noUsableNode(reports))
        }
        switch start {
        case .height(let height):
            // A cursor past the tip would skip every block up to it, silently, for good.
            guard height <= tip else { throw .aheadOfChain(height: height, tip: tip) }
            for listing in WatchListing.allCases { try await keep(WatchCursor(height: max(height, 0)), listing) }
            return max(height, 0)
        case .resume:
            if let kept = try await cursor(.chats) {
                // Nodes of a pool may lag each other by the reread margin; a cursor further ahead
                // than that was never a block a node showed (another network's home, an old
                // version's start past the tip), and waiting for the chain to reach it would
                // show nothing until then.
                guard kept.height <= tip + configuration.rereadBlocks else {
                    events.log(
                        .warning,
                        "watch: the kept cursor (block \(kept.height)) is ahead of every node (the tip is block \(tip)); watching from the tip"
                    )
                    for listing in WatchListing.allCases { try await keep(WatchCursor(height: tip), listing) }
                    return tip
                }
                if try await cursor(.transfers) == nil { try await keep(WatchCursor(height: kept.height), .transfers) }
                return kept.height
            }
            let height = await recoveredStart(lease, tip: tip) ?? tip
            for listing in WatchListing.allCases { try await keep(WatchCursor(height: height), listing) }
            return height
        }
    }

    /// Where a watch resumes whose log has no cursor though a watch of the account ran on
    /// this home (its lease was there): the log was replaced, or lost its WAL. Not the tip,
    /// which would skip in silence whatever came meanwhile, but the block the last watch kept
    /// beside the log, or else the block of the account's last own transaction (its owner was
    /// there then), and it says so. Nil for a home where no watch of the account ran.
    func recoveredStart(_ lease: WatchLease, tip: Int64) async -> Int64? {
        guard lease.heldBefore else { return nil }
        let account = await self.account
        let (height, source): (Int64, String)
        if let kept = lease.keptHeight, kept <= tip + configuration.rereadBlocks {
            (height, source) = (min(kept, tip), "the block the last watch had reached, kept in its lease")
        } else if let own = try? await fetcher.client.transactions(
            TransactionQuery(sender: account, limit: 1, order: .newestFirst)),
            let last = own.transactions.first?.height, last <= tip
        {
            (height, source) = (last, "the block of the account's last own transaction")
        } else {
            (height, source) = (tip, "the chain's tip, as nothing kept says more")
        }
        events.log(
            .warning,
            """
            watch: the notification log in this home has no cursor for \(account), though a watch of it ran here \
            (the log was replaced, or lost its write-ahead log): resuming from block \(height), \(source); \
            what came since may show again, and --from-height HEIGHT starts elsewhere
            """)
        return height
    }

    /// Merges the log into its main file, then keeps in `lease` the block below which every
    /// listing has handed everything over: in that order, so the copy is never ahead of a log
    /// that a lost WAL would take back. Best effort: a failure costs only a later resume.
    func keepResumePoint(in lease: WatchLease) async {
        await log.checkpoint()
        var lowest: Int64?
        // The listings read now: on 0.10 nodes the transfers come with the chats, and their
        // own listing's cursor stays where it was kept.
        for listing in WatchListing.current(in: pool).listings {
            guard let cursor = try? await cursor(listing) else { return }
            lowest = min(lowest ?? cursor.height, cursor.height)
        }
        if let lowest { lease.keep(height: lowest) }
    }
}
