import AdamantCore
import AdamantNodes
import Synchronization

/// The node sockets of a live watch, open to the `width` best usable nodes that have one, so
/// that one slow, silent or withholding node delays nothing. A node whose socket says
/// something false, or fails session after session, is set aside for a while and another is
/// opened in its place; while fewer than `width` nodes have a socket, the pool's ranking is
/// looked at again now and then. Each socket is a child task of `run`.
final class LiveFeed: Sendable {
    enum Event: Sendable {
        /// `node`'s socket is subscribed: its events arrive from now on.
        case live(NodeURL)
        /// `node`'s socket ended; a new session is tried after a backoff.
        case down(NodeURL, SessionEnd)
        /// A transaction to or from the addresses that `node` admitted, verified (its id).
        case received(Transaction, TransactionID, from: NodeURL)
        /// `node` brings more than its socket takes at once: its polls wait (why).
        case paced(NodeURL, SocketTraffic.Pacing)
        /// `node`'s socket is closed for `setAsideFor`, for `reason`.
        case setAside(NodeURL, because: SetAside)
    }

    /// Why a node's socket is set aside.
    enum SetAside: Sendable, CustomStringConvertible {
        /// It broke the protocol, or sent what does not verify.
        case broken(SessionEnd)
        /// Its sessions failed `times` in a row, the last as `last` says.
        case failing(times: Int, last: SessionEnd)

        var description: String {
            switch self {
            case .broken(let end): end.description
            case .failing(let times, let last): "\(times) sessions in a row failed, the last: \(last)"
            }
        }
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

    /// Follows every socket, handing each event to `handle` (from several child tasks at
    /// once), until the calling task is cancelled; every socket has closed when this returns.
    func run(_ handle: @escaping @Sendable (Event) -> Void) async {
        await withTaskGroup(of: NodeURL?.self) { group in
            var open = Set<NodeURL>()
            var looking = false
            while !Task.isCancelled {
                let now = pool.clock.now
                for node in pool.socketNodes
                where open.count < width && !open.contains(node.url) && !isSetAside(node.url, at: now) {
                    open.insert(node.url)
                    group.addTask {
                        await self.follow(node, handle)
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
    }

    /// One node's socket, until cancelled or set aside.
    private func follow(_ node: NodePool.SocketNode, _ handle: @Sendable (Event) -> Void) async {
        let connection = pool.socket(to: node, addresses: addresses, types: [0, 8])
        var failuresInARow = 0
        var setAsideBecause: SetAside?
        await connection.run { event in
            switch event {
            case .live:
                failuresInARow = 0
                handle(.live(node.url))
            case .received(let transaction, let id): handle(.received(transaction, id, from: node.url))
            case .paced(let why): handle(.paced(node.url, why))
            case .down(let end):
                handle(.down(node.url, end))
                // A proxy that is down says nothing of the node: its socket is tried again
                // after the session's backoff, and comes back with the proxy.
                guard end.isTheNodes else { return true }
                failuresInARow += 1
                if case .broken = end {
                    pool.distrust(node.url, because: "its socket: \(end)")
                    setAsideBecause = .broken(end)
                } else if failuresInARow >= failuresToSetAside {
                    // Silent or unreachable time after time: another node's socket may serve.
                    setAsideBecause = .failing(times: failuresInARow, last: end)
                }
            }
            return setAsideBecause == nil
        }
        guard let reason = setAsideBecause else { return }
        setAside.withLock { $0[node.url] = pool.clock.now + setAsideFor }
        handle(.setAside(node.url, because: reason))
        // Whoever counts the live sockets hears this one is gone.
        handle(.down(node.url, .failed("closed: the node is set aside")))
    }

    private func isSetAside(_ url: NodeURL, at now: AnyClock.Instant) -> Bool {
        setAside.withLock { $0[url].map { now < $0 } ?? false }
    }
}
