import AdamantCore
import AdamantNodes
import AdamantStore

/// The catch-up: the listings of blocks read page after page, each page recorded and handed over in order.
extension Watcher {
    /// Pages read and waiting to be handed over, at most: three measured the same as two.
    fileprivate static let readAhead = 2

    /// A page read, with where it was read and the scan past it.
    fileprivate struct ReadPage: Sendable {
        let transactions: [Transaction]
        let from: WatchCursor
        let past: WatchScan
        let caughtUp: Bool
    }

    fileprivate enum CatchUpStep: Sendable {
        case read(Result<[Transaction], NodeError>)
        case handed(Result<Bool, WatchError>)
    }

    /// Reads every listing to its end; false when stopped on the way.
    func readListings(
        _ scans: inout [WatchListing: WatchScan], _ deliver: @escaping Deliver, _ lease: WatchLease
    ) async throws(WatchError) -> Bool {
        let (listings, withTransfers) = WatchListing.current(in: pool)
        for listing in listings {
            var scan: WatchScan
            if let known = scans[listing] {
                scan = known
            } else {
                var kept = try await cursor(listing)
                if kept == nil { kept = try await cursor(.chats) }
                scan = WatchScan(kept ?? WatchCursor(height: 0))
            }
            do throws(WatchFailure) {
                let finished = try await catchUp(listing, &scan, chatsWithTransfers: withTransfers, deliver, lease)
                scans[listing] = scan
                if !finished { return false }
                events.log(
                    .debug,
                    "watch: \(listing.rawValue) read; the cursor is at block \(scan.cursor.height), position \(scan.cursor.skip)"
                )
            } catch {
                scans[listing] = scan
                switch error {
                case .ending(let failure): throw failure
                case .node where Task.isCancelled: return false
                case .node(let failure):
                    events.log(
                        .warning, "watch: reading \(listing.rawValue) failed, trying again at the next poll: \(failure)"
                    )
                }
            }
        }
        return true
    }

    /// Reads `listing` page after page until a short one; false when stopped on the way. Pages
    /// are read (and verified, on every core) while earlier ones are handed over, in order, one
    /// at a time; up to `readAhead` pages wait for their turn, so that the next is asked for
    /// as soon as one arrives and the cores never wait for a hand-over to end.
    func catchUp(
        _ listing: WatchListing, _ scan: inout WatchScan, chatsWithTransfers: Bool, _ deliver: @escaping Deliver,
        _ lease: WatchLease
    ) async throws(WatchFailure) -> Bool {
        let account = await self.account
        let outcome = await withTaskGroup(of: CatchUpStep.self) { group -> Result<Bool, WatchFailure> in
            // Leaving early (stopped, failed) leaves no read behind; a hand-over under way is
            // cancelled and takes out what it did not hand over.
            defer { group.cancelAll() }
            var ahead = scan  // past every page read so far
            var reading = false
            var readToEnd = false
            var readFailure: NodeError?
            var waiting: [ReadPage] = []
            var handing: ReadPage?
            var read = 0
            func askIfRoom() {
                guard !reading, !readToEnd, readFailure == nil, waiting.count < Self.readAhead else { return }
                reading = true
                group.addTask { [configuration, client = fetcher.client, cursor = ahead.cursor] in
                    do throws(NodeError) {
                        return .read(
                            .success(
                                try await listing.page(
                                    at: cursor, for: account, limit: configuration.pageSize,
                                    chatsWithTransfers: chatsWithTransfers, client: client)))
                    } catch {
                        return .read(.failure(error))
                    }
                }
            }
            func handNext() {
                guard handing == nil, !waiting.isEmpty else { return }
                let page = waiting.removeFirst()
                handing = page
                group.addTask {
                    do throws(WatchError) {
                        return .handed(
                            .success(
                                try await hand(
                                    page.transactions, listing, from: page.from, to: page.past.cursor, deliver, lease)))
                    } catch {
                        return .handed(.failure(error))
                    }
                }
            }
            askIfRoom()
            while !Task.isCancelled, let step = await group.next() {
                switch step {
                case .read(let answer):
                    reading = false
                    switch answer {
                    case .success(let transactions):
                        let (past, caughtUp) = ahead.advanced(
                            past: transactions, limit: configuration.pageSize, rereadBlocks: configuration.rereadBlocks)
                        waiting.append(
                            ReadPage(transactions: transactions, from: ahead.cursor, past: past, caughtUp: caughtUp))
                        ahead = past
                        readToEnd = caughtUp
                    case .failure(let error):
                        // What was read before it is still handed over first.
                        readFailure = error
                    }
                case .handed(let result):
                    let delivered: Bool
                    do throws(WatchError) { delivered = try result.get() } catch { return .failure(.ending(error)) }
                    guard delivered, let page = handing else { return .success(false) }
                    handing = nil
                    scan = page.past
                    read += page.transactions.count
                    progress?(
                        WatchProgress(
                            read: read, height: scan.highestSeen ?? scan.cursor.height,
                            chainHeight: pool.reports.compactMap(\.status?.height).max(),
                            caughtUp: page.caughtUp))
                    if page.caughtUp { return .success(true) }
                }
                handNext()
                askIfRoom()
                if handing == nil, !reading, let readFailure { return .failure(.node(readFailure)) }
            }
            return .success(false)
        }
        return try outcome.get()
    }

    /// Records the page's new notifications with the cursor past it, then hands them over in
    /// block order; stopped before the end, or by one that cannot be handed over, takes the
    /// rest out again. False when stopped.
    func hand(
        _ transactions: [Transaction], _ listing: WatchListing, from cursor: WatchCursor, to next: WatchCursor,
        _ deliver: Deliver, _ lease: WatchLease
    ) async throws(WatchError) -> Bool {
        // Derived from the key once a page, not once a transaction.
        let account = await self.account
        let candidates = WatchFilter.notifiable(transactions, for: account)
        guard !candidates.isEmpty || next != cursor else { return true }
        let page = try await logged { () throws(StoreError) in
            try await log.recordWatched(
                candidates.map(\.watched), account: account, from: cursor, to: next, stream: listing.stream,
                lease: lease)
        }
        let fresh = page.shownBefore.isEmpty ? candidates : candidates.filter { !page.shownBefore.contains($0.id) }
        var notifications: [WatchNotification] = []
        notifications.reserveCapacity(fresh.count)
        for candidate in fresh {
            let result = await fetcher.show(
                transactions[candidate.index], id: candidate.id, sender: candidate.sender, account: account,
                until: pool.clock.now + fetcher.configuration.deadline)
            notifications.append(WatchNotification(result: result, via: .poll, account: account))
        }
        // By index: each handed over from where it lies, not copied out first.
        for index in notifications.indices {
            if Task.isCancelled {
                try await logged { () throws(StoreError) in try await page.takeBackTheRest() }
                return false
            }
            do throws(HandOverFailure) {
                try await deliver(notifications[index])
            } catch {
                try await logged { () throws(StoreError) in try await page.takeBackTheRest() }
                throw .notHandedOver(notifications[index].result.id, error)
            }
            page.handedOverNext()
        }
        return true
    }
}
