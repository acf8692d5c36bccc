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
    public let sideTask: (@Sendable () async -> Void)?
    let events: any LogSink
    /// Told after every page read, for a progress line through a backlog.
    let progress: (@Sendable (WatchProgress) -> Void)?

    /// A watch of the account `fetcher` reads for, recorded in `log`; `sideTask`, when given, runs
    /// beside it, and `events` hears what happens (nodes failing, sockets set aside).
    public init(
        fetcher: Fetcher, log: NotificationLog, configuration: Configuration = Configuration(),
        sideTask: (@Sendable () async -> Void)? = nil,
        events: any LogSink = SilentLog(), progress: (@Sendable (WatchProgress) -> Void)? = nil
    ) {
        self.fetcher = fetcher
        self.log = log
        self.configuration = configuration
        self.sideTask = sideTask
        self.events = events
        self.progress = progress
    }

    var account: Address { get async { await fetcher.keys.keyPair.address } }
    var pool: NodePool { fetcher.client.pool }

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
                        try await handOverUnconfirmed(transaction, id: id, shownFrom: floor, deliver, lease)
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

    /// The one line that says an account's watch is set aside for its failing log.
    static func setAside(_ account: Address, _ failure: StoreError) -> String {
        "watch: \(account) is set aside, tried again at each poll: its notification log failed (\(failure)); the other accounts are watched meanwhile"
    }

    /// The line that says it is watched again.
    static func back(_ account: Address) -> String {
        "watch: \(account)'s notification log works again: it is watched again"
    }

    func cursor(_ listing: WatchListing) async throws(WatchError) -> WatchCursor? {
        try await logged { () throws(StoreError) in
            try await log.watchCursor(account: account, stream: listing.stream)
        }
    }

    func keep(_ cursor: WatchCursor, _ listing: WatchListing) async throws(WatchError) {
        try await logged { () throws(StoreError) in
            try await log.setWatchCursor(cursor, account: account, stream: listing.stream)
        }
    }

    /// What the log answers, its failure the watch's.
    @discardableResult
    func logged<T>(_ body: () async throws(StoreError) -> T) async throws(WatchError) -> T {
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
