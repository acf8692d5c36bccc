import AdamantCore
public import AdamantNodes
public import AdamantStore

/// Notifications with no push service: follows the account's incoming transactions, verifies,
/// decrypts and renders each (through `Fetcher.show`), and hands each one over exactly once,
/// across restarts. Prints nothing.
///
/// Live, the sockets of the two best nodes that have one announce each transaction as a node
/// admits it, seconds before a block holds it; the listings stay the record, read at the
/// start, whenever a socket comes up, and every `liveInterval`, so what a socket missed is
/// still shown, in block order. Without a live socket the listings are read every `interval`.
/// Sockets and listings are taken on one task, so one transaction is never checked and shown
/// by both at once; what was shown from the pool is skipped when its block is listed.
///
/// Each page is recorded in the home's log (shown ids and the cursor past the page, one
/// transaction) before it is handed over; stopped mid-page, the undelivered rest is taken out
/// again, so a restart neither misses nor repeats. A process killed outright in the middle of
/// a page leaves the page in the log with the count handed over, from which the next start
/// takes the rest out: only the notification being handed over at the kill is handed over again.
public struct Watcher: Sendable {
    /// Shows one notification; throws when it cannot, and the watch then stops.
    public typealias Deliver = @Sendable (WatchNotification) async throws(HandOverFailure) -> Void

    /// How often a watch polls, checks the nodes and gives the outbox a turn, on the pool's clock.
    public struct Configuration: Sendable {
        /// Between polls once caught up while no socket is live; a backlog is read page after page.
        public var interval: Duration = .seconds(10)
        /// Follow the nodes' sockets (those whose status gives one); false polls only.
        public var live = true
        /// Between polls while a socket is live: the listings are then only the record.
        public var liveInterval: Duration = .seconds(60)
        /// How many nodes' sockets are kept open at once.
        public var socketWidth = 2
        /// Transactions per request (the nodes' cap on chats is 100).
        public var pageSize = 100
        /// Blocks read again when a caught-up listing moves its height up: nodes of one pool
        /// may be this far apart (`NodePool.Configuration.heightTolerance`).
        public var rereadBlocks: Int64 = 10
        /// Between health checks of the nodes while some node is usable.
        public var healthInterval: Duration = .seconds(300)
        /// Between health checks while no node is usable.
        public var healthRetryInterval: Duration = .seconds(30)
        /// How often, at most, the log is merged into its main file and the block reached is
        /// kept beside it (and once more as the watch ends), so that losing the log's WAL, or
        /// the log, costs at most what came since.
        public var checkpointInterval: Duration = .seconds(300)
        /// The defaults: live on two sockets with a poll every 60 s (every 10 s with no socket
        /// live), health every 5 minutes.
        public init() {}
    }

    /// Verifies, decrypts and renders each transaction, with its account, nodes and names.
    public let fetcher: Fetcher
    /// Keeps the cursor and what was shown, so a restart neither misses nor repeats.
    public let log: NotificationLog
    /// The intervals and page size of this watch.
    public let configuration: Configuration
    /// Work that runs beside the watch for as long as it runs (a registration outbox's turns):
    /// it ends when the watch does, and its failures are its own.
    public let chore: (@Sendable () async -> Void)?
    let events: any LogSink
    /// Told after every page read, for a progress line through a backlog.
    let progress: (@Sendable (WatchProgress) -> Void)?

    /// A watch of the account `fetcher` reads for, recorded in `log`; `chore`, when given, runs
    /// beside it, and `events` hears what happens (nodes failing, sockets set aside).
    public init(
        fetcher: Fetcher, log: NotificationLog, configuration: Configuration = Configuration(),
        chore: (@Sendable () async -> Void)? = nil,
        events: any LogSink = SilentLog(), progress: (@Sendable (WatchProgress) -> Void)? = nil
    ) {
        self.fetcher = fetcher
        self.log = log
        self.configuration = configuration
        self.chore = chore
        self.events = events
        self.progress = progress
    }

    var account: Address { get async { await fetcher.keys.keyPair.address } }
    var pool: NodePool { fetcher.client.pool }

    /// Takes back what a killed watch recorded and never handed over, checks the nodes and
    /// settles where the watch starts, keeping it as the cursor (and in `lease`, when given)
    /// so a restart begins there too. Returns that block height.
    @discardableResult
    public func begin(_ start: WatchStart, lease: WatchLease) async throws(WatchError) -> Int64 {
        let height = try await settleStart(start, lease: lease)
        await keepResumePoint(in: lease)
        return height
    }

    private func settleStart(_ start: WatchStart, lease: WatchLease) async throws(WatchError) -> Int64 {
        for stream in WatchListing.allCases.map(\.rawValue) + [Self.socketStream] {
            try await logged { () throws(StoreError) in
                try await log.settleWatched(account: account, stream: stream, lease: lease)
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
    private func recoveredStart(_ lease: WatchLease, tip: Int64) async -> Int64? {
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

    /// Watches until the calling task is cancelled (then returns), with the pool's health
    /// monitored and the registration outbox flushed alongside, holding the account's lease on
    /// the log's home so no second watch shows the same. Throws when another holds it, no node is usable
    /// at the start, the start is past the chain's tip, the log fails, or `onNotification`
    /// cannot show one (that one and the rest of its page stay unshown, so the next start
    /// shows them); network failures later are logged and retried. `onStart` is told the
    /// height the watch starts at, once `begin` has settled it.
    public func run(
        from start: WatchStart = .resume, onStart: @escaping @Sendable (Int64) -> Void = { _ in },
        onNotification: @escaping Deliver
    ) async throws(WatchError) {
        do {
            try await WatchGroup([self]).run(from: start, onStart: { onStart($1) }, onNotification: onNotification)
        } catch { throw error.error }
    }

    /// The stream the log keeps the page of what the sockets bring under.
    static let socketStream = "socket"

    /// Reads the listings now and then, and takes what the sockets put in `inbox` meanwhile
    /// (a fresh inbox: polls only), until cancelled. Its timers are child tasks of its own:
    /// none outlives it.
    func watch(
        _ deliver: @escaping Deliver, inbox: WatchInbox = WatchInbox(), lease: WatchLease,
        setsAsideStoreFailures: Bool = false
    ) async throws(WatchError) {
        let account = await self.account
        var scans: [WatchListing: WatchScan] = [:]
        var reached = ReachedBlocks()
        var live = Set<NodeURL>()
        var round = 0
        var lastKept = pool.clock.now
        // Read as the first socket comes up, not before: its `live` would read them again.
        var poolDue = false
        // The log failed (a full disk): nothing is read but the retry, and the listings find
        // later what the sockets bring meanwhile.
        var setAside = false
        let ended = await withDiscardingTaskGroup { group -> WatchError? in
            defer { group.cancelAll() }
            // A timer a later one replaced still runs out, and its round is then ignored.
            func poll(after delay: Duration, withPool: Bool = false) {
                round += 1
                poolDue = poolDue || withPool
                let due = Wake.pollDue(round: round, pool: poolDue)
                guard delay > .zero else {
                    inbox.continuation.yield(due)
                    return
                }
                group.addTask { [clock = pool.clock] in
                    if (try? await clock.sleep(for: delay)) != nil { inbox.continuation.yield(due) }
                }
            }
            poll(after: .zero)
            for await next in inbox.wakes {
                do throws(WatchError) {
                    switch next {
                    case .pollDue(let due, let withPool):
                        guard due == round else { continue }
                        guard try await readListings(&scans, deliver, lease) else { return nil }
                        reached.add(Self.floor(scans, configuration), at: pool.localUnixMillis)
                        // As a socket comes up where none was live (at the start too): what was
                        // sent while none listened waits in the pools, announced by no socket,
                        // in no block.
                        if withPool {
                            guard try await readPool(scans, deliver, lease) else { return nil }
                            poolDue = false
                        }
                        if setAside {
                            setAside = false
                            events.log(.info, Self.back(account))
                        }
                        // Every listing is handed over to its cursor here: the point to keep.
                        if lastKept.duration(to: pool.clock.now) >= configuration.checkpointInterval {
                            await keepResumePoint(in: lease)
                            lastKept = pool.clock.now
                        }
                        poll(after: live.isEmpty ? configuration.interval : configuration.liveInterval)
                    case .socket(.live(let node)):
                        // What the socket could not bring while it was down is in the listings;
                        // what was admitted while no socket listened is in the pools.
                        let none = live.isEmpty
                        live.insert(node)
                        if !setAside { poll(after: .zero, withPool: none) }
                    case .socket(.down(let node, _)):
                        guard live.remove(node) != nil else { continue }
                        if live.isEmpty, !setAside { poll(after: .zero) }
                    case .socket(.admitted(let transaction, let id, _)):
                        guard !setAside else { continue }
                        // A socket paced through a burst brings a transaction late, when the
                        // listings may have read past its block: it is looked for from where
                        // they read when it was signed.
                        let signed =
                            AdamantTime.unixMillis(timestamp: Int64(transaction.timestamp)) - Self.clockMargin
                        let floor = min(Self.floor(scans, configuration), reached.floor(at: signed) ?? .max)
                        try await handPooled(transaction, id: id, shownFrom: floor, deliver, lease)
                    }
                } catch .store(let failure) where setsAsideStoreFailures && !Task.isCancelled {
                    // One account's home failing (its disk full) stops no other account's
                    // watch: this one is tried again at each poll, and said once.
                    if !setAside { events.log(.error, Self.setAside(account, failure)) }
                    setAside = true
                    scans = [:]  // read again from the log's cursors, where what failed was left
                    poll(
                        after: live.isEmpty ? configuration.interval : configuration.liveInterval,
                        withPool: configuration.live)
                } catch {
                    return error
                }
            }
            return nil
        }
        if let ended { throw ended }
    }

    /// Reads every listing to its end; false when stopped on the way.
    private func readListings(
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

    /// Shows what the nodes' pools hold for the account and was not shown, oldest first;
    /// false when stopped on the way. A pool that cannot be read is left to the sockets and
    /// the blocks.
    private func readPool(_ scans: [WatchListing: WatchScan], _ deliver: Deliver, _ lease: WatchLease)
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
            try await handPooled(transaction, id: id, shownFrom: floor, deliver, lease)
        }
        return !Task.isCancelled
    }

    /// The one line that says an account's watch is set aside for its failing log.
    static func setAside(_ account: Address, _ failure: StoreError) -> String {
        "watch: \(account) is set aside, tried again at each poll: its notification log failed (\(failure)); the other accounts are watched meanwhile"
    }

    /// The line that says it is watched again.
    static func back(_ account: Address) -> String {
        "watch: \(account)'s notification log works again: it is watched again"
    }

    /// How far a transaction's time may be from this machine's: a node takes one signed up to
    /// half a second ahead of its clock, and the pool's nodes keep within 5 s of each other.
    static let clockMargin: Int64 = 30_000

    /// Where the listings read now, less the reread margin: a transaction still in a pool
    /// lands in no block below it.
    private static func floor(_ scans: [WatchListing: WatchScan], _ configuration: Configuration) -> Int64 {
        (scans.values.map(\.cursor.height).min() ?? 0) - configuration.rereadBlocks
    }

    /// A transaction a node's socket announced, verified: shown unless it is not a
    /// notification for this account (dropped quietly) or was shown before.
    private func handPooled(
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
                [id], account: account, at: pool.localUnixMillis, stream: Self.socketStream, lease: lease)
        }
        do throws(HandOverFailure) {
            try await deliver(WatchNotification(result: result, via: .socket, account: account))
        } catch {
            try await logged { () throws(StoreError) in try await page.forgetTheRest() }
            throw .notHandedOver(id, error)
        }
        page.handedOverNext()
    }

    /// Reads `listing` page after page until a short one; false when stopped on the way. Pages
    /// are read (and verified, on every core) while earlier ones are handed over, in order, one
    /// at a time; up to `readAhead` pages wait for their turn, so that the next is asked for
    /// as soon as one arrives and the cores never wait for a hand-over to end.
    private func catchUp(
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

    /// Pages read and waiting to be handed over, at most: three measured the same as two.
    private static let readAhead = 2

    /// A page read, with where it was read and the scan past it.
    private struct ReadPage: Sendable {
        let transactions: [Transaction]
        let from: WatchCursor
        let past: WatchScan
        let caughtUp: Bool
    }

    private enum CatchUpStep: Sendable {
        case read(Result<[Transaction], NodeError>)
        case handed(Result<Bool, WatchError>)
    }

    /// Records the page's new notifications with the cursor past it, then hands them over in
    /// block order; stopped before the end, or by one that cannot be handed over, takes the
    /// rest out again. False when stopped.
    private func hand(
        _ transactions: [Transaction], _ listing: WatchListing, from cursor: WatchCursor, to next: WatchCursor,
        _ deliver: Deliver, _ lease: WatchLease
    ) async throws(WatchError) -> Bool {
        // Derived from the key once a page, not once a transaction.
        let account = await self.account
        let candidates = WatchFilter.notifiable(transactions, for: account)
        guard !candidates.isEmpty || next != cursor else { return true }
        let page = try await logged { () throws(StoreError) in
            try await log.recordWatched(
                candidates.map(\.watched), account: account, from: cursor, to: next, stream: listing.rawValue,
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
                try await logged { () throws(StoreError) in try await page.forgetTheRest() }
                return false
            }
            do throws(HandOverFailure) {
                try await deliver(notifications[index])
            } catch {
                try await logged { () throws(StoreError) in try await page.forgetTheRest() }
                throw .notHandedOver(notifications[index].result.id, error)
            }
            page.handedOverNext()
        }
        return true
    }

    private func cursor(_ listing: WatchListing) async throws(WatchError) -> WatchCursor? {
        try await logged { () throws(StoreError) in
            try await log.watchCursor(account: account, stream: listing.rawValue)
        }
    }

    private func keep(_ cursor: WatchCursor, _ listing: WatchListing) async throws(WatchError) {
        try await logged { () throws(StoreError) in
            try await log.setWatchCursor(cursor, account: account, stream: listing.rawValue)
        }
    }

    /// What the log answers, its failure the watch's.
    @discardableResult
    private func logged<T>(_ body: () async throws(StoreError) -> T) async throws(WatchError) -> T {
        do { return try await body() } catch { throw .store(error) }
    }
}

/// How far one listing's catch-up got, after a page.
public struct WatchProgress: Sendable, Hashable {
    /// Transactions read since this catch-up began (shown or not).
    public var read: Int
    /// The highest block read so far.
    public var height: Int64
    /// The highest block the pool's last health check saw, if any.
    public var chainHeight: Int64?
    /// The page was the last: the listing is read to its end.
    public var caughtUp: Bool
}

/// A page could not be read (retried later), or the watch ends (the log failed, a
/// notification could not be handed over).
enum WatchFailure: Error {
    case node(NodeError)
    case ending(WatchError)
}
