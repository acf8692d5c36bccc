public import AdamantCore
import AdamantNodes
import AdamantStore

/// Several accounts watched by one process: each `Watcher` keeps its own cursors, pages and
/// lease, while watchers that read through one node pool share its health checks and its
/// sockets, one socket per node carrying all their addresses. Watchers on pools of their own
/// (through Tor, each account on its own circuit) get sockets of their own. The first
/// watcher's configuration decides the sockets and the health checks.
public struct WatchGroup: Sendable {
    /// Why the group stopped, and whose watch it was.
    public struct Failure: Error, Sendable {
        /// The account whose watch ended the group.
        public let account: Address
        /// Why it ended, as `Watcher.run` would have thrown it.
        public let error: WatchError
    }

    /// One per account, each with its own log and, if it has one, outbox.
    public let watchers: [Watcher]

    /// A group of `watchers`, run together by `run`.
    public init(_ watchers: [Watcher]) { self.watchers = watchers }

    /// Watches every account until the calling task is cancelled (then returns): takes each
    /// account's lease and settles where each starts (`onStart` is told), then follows them
    /// all. Throws, and stops them all, when a lease is refused, a start cannot be settled, or
    /// a watch ends for a reason of its own (see `Watcher.run`).
    public func run(
        from start: WatchStart = .resume, onStart: @escaping @Sendable (Address, Int64) -> Void = { _, _ in },
        onNotification: @escaping Watcher.Deliver
    ) async throws(Failure) {
        guard let first = watchers.first else { return }
        var found: [Address] = []
        for watcher in watchers { found.append(await watcher.account) }
        let accounts = found
        var leases: [WatchLease] = []
        defer { withExtendedLifetime(leases) {} }
        for (watcher, account) in zip(watchers, accounts) {
            do { leases.append(try watcher.log.leaseWatch(account: account)) } catch {
                throw Failure(account: account, error: .leaseRefused(error))
            }
        }
        // One whose log fails as it begins (its disk full) begins later, when others go on.
        var begun = [Bool](repeating: true, count: watchers.count)
        for (index, watcher) in watchers.enumerated() {
            let (account, lease) = (accounts[index], leases[index])
            do throws(WatchError) { onStart(account, try await watcher.begin(start, lease: lease)) } catch {
                guard case .store(let failure) = error, watchers.count > 1 else {
                    throw Failure(account: account, error: error)
                }
                watcher.events.log(.error, Watcher.setAside(account, failure))
                begun[index] = false
            }
        }
        let configuration = first.configuration
        let inboxes = watchers.map { _ in WatchInbox() }
        // The watchers of each pool, in the order their pools first appear.
        var byPool: [(pool: NodePool, members: [Int])] = []
        for (index, watcher) in watchers.enumerated() {
            if let shared = byPool.firstIndex(where: { $0.pool === watcher.pool }) {
                byPool[shared].members.append(index)
            } else {
                byPool.append((watcher.pool, [index]))
            }
        }

        enum Ended: Sendable {
            case watch(Failure?)
            case sideTask
        }
        let failure = await withTaskGroup(of: Ended.self) { group -> Failure? in
            for (pool, members) in byPool {
                if configuration.live {
                    let feed = LiveFeed(
                        pool: pool, addresses: members.map { accounts[$0] }, width: configuration.socketWidth)
                    let dispatch = SocketDispatch(
                        routes: members.map { (accounts[$0], inboxes[$0].continuation) }, events: first.events,
                        polling: configuration.interval, setAsideFor: feed.setAsideFor)
                    group.addTask {
                        await feed.run(dispatch.handle)
                        return .sideTask
                    }
                }
                group.addTask {
                    try? await pool.clock.sleep(for: configuration.healthInterval)
                    await pool.monitor(
                        every: configuration.healthInterval, retryInterval: configuration.healthRetryInterval)
                    return .sideTask
                }
            }
            for (index, watcher) in watchers.enumerated() {
                let inbox = inboxes[index]
                let account = accounts[index]
                let lease = leases[index]
                let hasBegun = begun[index]
                group.addTask {
                    do throws(WatchError) {
                        if !hasBegun {
                            guard let height = await Self.begin(watcher, from: start, lease: lease) else {
                                return .watch(nil)
                            }
                            watcher.events.log(.info, Watcher.back(account))
                            onStart(account, height)
                        }
                        try await watcher.watch(
                            onNotification, inbox: inbox, lease: lease, setsAsideStoreFailures: watchers.count > 1)
                    } catch {
                        return .watch(Failure(account: account, error: error))
                    }
                    return .watch(nil)
                }
                if let sideTask = watcher.sideTask {
                    group.addTask {
                        await sideTask()
                        return .sideTask
                    }
                }
            }
            var failure: Failure?
            for await ended in group {
                guard case .watch(let error) = ended else { continue }
                failure = failure ?? error
                group.cancelAll()
            }
            return failure
        }
        for inbox in inboxes { inbox.continuation.finish() }
        // However it ended, what each watch kept is merged and its point kept, for the next.
        for (watcher, lease) in zip(watchers, leases) { await watcher.keepResumePoint(in: lease) }
        if let failure { throw failure }
    }

    /// Begins `watcher` once its log lets it, tried again every poll interval; nil when
    /// cancelled first. What the sockets bring meanwhile waits in its inbox.
    private static func begin(_ watcher: Watcher, from start: WatchStart, lease: WatchLease) async -> Int64? {
        while true {
            guard (try? await watcher.pool.clock.sleep(for: watcher.configuration.interval)) != nil else { return nil }
            if let height = try? await watcher.begin(start, lease: lease) { return height }
        }
    }
}
