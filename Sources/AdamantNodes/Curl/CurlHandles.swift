import Synchronization

/// Idle easy handles, each filed under the origin (scheme, host and port) it last talked to,
/// so a request goes out on a handle still holding a live connection to its node. A read hedged
/// to the second node would otherwise often take the handle that had talked to the third, and
/// pay a new connection (and the node a new thread) inside the hedge's budget. A handle works
/// for one thread at a time: it is out of the cache while it does.
final class CurlHandles: Sendable {
    private struct Idle {
        let origin: Substring
        let easy: CurlEasy
    }

    /// Oldest first.
    private let idle = Mutex<[Idle]>([])
    private let capacity: Int

    /// Keeps at most `capacity` idle handles (one per worker is all that can be busy at once).
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The handle last used for `origin`, else a new one: a handle of another origin keeps its
    /// connection for the request that wants it.
    func checkOut(for origin: Substring) -> Result<CurlEasy, TransportError> {
        let reused = idle.withLock { idle -> CurlEasy? in
            guard let index = idle.lastIndex(where: { $0.origin == origin }) else { return nil }
            return idle.remove(at: index).easy
        }
        return reused.map(Result.success) ?? CurlEasy.make()
    }

    /// Files `easy` under `origin`; past the capacity the oldest idle handle goes, closing its
    /// connections.
    func checkIn(_ easy: CurlEasy, from origin: Substring) {
        let evicted = idle.withLock { idle -> Idle? in
            idle.append(Idle(origin: origin, easy: easy))
            return idle.count > capacity ? idle.removeFirst() : nil
        }
        _ = evicted  // cleaned up here, outside the lock
    }

    /// `http://127.0.0.1:36001` of `http://127.0.0.1:36001/api/…`: what a connection is to.
    static func origin(of url: String) -> Substring {
        guard let scheme = url.firstRange(of: "://") else { return url[...] }
        let rest = url[scheme.upperBound...]
        return url[..<(rest.firstIndex(of: "/") ?? url.endIndex)]
    }
}
