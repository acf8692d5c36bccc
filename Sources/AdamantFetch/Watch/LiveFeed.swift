import AdamantCore
import AdamantNodes
import Synchronization

/// The node sockets of a live watch, open to the `width` best usable nodes that have one, so
/// that one slow, silent or withholding node delays nothing. A node whose socket says
/// something false, or fails session after session, is set aside for a while and another is
/// opened in its place; while fewer
/// than `width` nodes have a socket, the pool's ranking is looked at again now and then.
final class LiveFeed: Sendable {
    enum Event: Sendable {
        /// `node`'s socket is subscribed: its events arrive from now on.
        case live(NodeURL)
        /// `node`'s socket ended; a new session is tried after a backoff.
        case down(NodeURL, SessionEnd)
        /// A transaction to or from the addresses that `node` admitted, verified (its id).
        case received(Transaction, TransactionID, from: NodeURL)
        /// `node` brings more than its socket takes at once: its polls wait (why).
        case paced(NodeURL, String)
        /// `node`'s socket is closed for `setAsideFor`, for `reason`.
        case setAside(NodeURL, because: String)
    }

    let pool: NodePool
    let addresses: [Address]
    let width: Int
    let setAsideFor: Duration
    let lookAgainEvery: Duration
    /// Sessions in a row that end before they are live, or without ever being, after which
    /// the node's socket is set aside though it broke no rule. Sessions the proxy ended are
    /// not counted.
    let failuresToSetAside = 3
    private let setAside = Mutex<[NodeURL: AnyClock.Instant]>([:])
    private let followers = Mutex<[NodeURL: Task<Void, Never>]>([:])

    init(
        pool: NodePool, addresses: [Address], width: Int = 2, setAsideFor: Duration = .seconds(600),
        lookAgainEvery: Duration = .seconds(30)
    ) {
        self.pool = pool
        self.addresses = addresses
        self.width = width
        self.setAsideFor = setAsideFor
        self.lookAgainEvery = lookAgainEvery
    }

    /// Closes `url`'s socket and opens another node's instead, for `setAsideFor`.
    func setAside(_ url: NodeURL) {
        let until = pool.clock.now + setAsideFor
        setAside.withLock { $0[url] = until }
        followers.withLock { $0[url] }?.cancel()
    }

    /// Every socket's events, until the reading task is cancelled.
    func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            let runner = Task { await self.run(continuation) }
            continuation.onTermination = { _ in runner.cancel() }
        }
    }

    private func run(_ output: AsyncStream<Event>.Continuation) async {
        await withTaskGroup(of: NodeURL?.self) { group in
            var open = Set<NodeURL>()
            var looking = false
            while !Task.isCancelled {
                let now = pool.clock.now
                for node in pool.socketNodes
                where open.count < width && !open.contains(node.url) && !isSetAside(node.url, at: now) {
                    open.insert(node.url)
                    group.addTask {
                        await self.follow(node, output)
                        return node.url
                    }
                }
                if open.count < width, !looking {
                    looking = true
                    group.addTask { [pool, lookAgainEvery] in
                        try? await pool.clock.sleep(for: lookAgainEvery)
                        return nil
                    }
                }
                guard let ended = await group.next() else { break }
                if let ended { open.remove(ended) } else { looking = false }
            }
            group.cancelAll()
        }
        output.finish()
    }

    /// One node's socket, until cancelled or set aside.
    private func follow(_ node: NodePool.SocketNode, _ output: AsyncStream<Event>.Continuation) async {
        let connection = pool.socket(to: node, addresses: addresses, types: [0, 8])
        let follower = Task { [failuresToSetAside] in
            var failuresInARow = 0
            for await event in connection.events() {
                switch event {
                case .live:
                    failuresInARow = 0
                    output.yield(.live(node.url))
                case .received(let transaction, let id): output.yield(.received(transaction, id, from: node.url))
                case .paced(let why): output.yield(.paced(node.url, why))
                case .down(let end):
                    output.yield(.down(node.url, end))
                    // A proxy that is down says nothing of the node: its socket is tried again
                    // after the session's backoff, and comes back with the proxy.
                    guard end.isTheNodes else { continue }
                    failuresInARow += 1
                    if case .broken = end {
                        pool.distrust(node.url, because: "its socket: \(end)")
                        output.yield(.setAside(node.url, because: end.description))
                        setAside(node.url)
                    } else if failuresInARow >= failuresToSetAside {
                        // Silent or unreachable time after time: another node's socket may serve.
                        output.yield(
                            .setAside(node.url, because: "\(failuresInARow) sessions in a row failed, the last: \(end)")
                        )
                        setAside(node.url)
                    }
                }
            }
        }
        followers.withLock { $0[node.url] = follower }
        if isSetAside(node.url, at: pool.clock.now) { follower.cancel() }
        await withTaskCancellationHandler {
            await follower.value
        } onCancel: {
            follower.cancel()
        }
        followers.withLock { $0[node.url] = nil }
        // Set aside: whoever counts the live sockets hears this one is gone.
        if !Task.isCancelled { output.yield(.down(node.url, .failed("closed: the node is set aside"))) }
    }

    private func isSetAside(_ url: NodeURL, at now: AnyClock.Instant) -> Bool {
        setAside.withLock { $0[url].map { now < $0 } ?? false }
    }
}
