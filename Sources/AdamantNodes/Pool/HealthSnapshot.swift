import Synchronization

/// What a health check found, kept between processes: a process started for one push can then
/// ask the best node at once, instead of first waiting for every node's status (a node that
/// accepts connections and never answers makes that wait last the whole status timeout).
public struct HealthSnapshot: Sendable, Hashable, Codable {
    /// One node as the check found it.
    public struct Node: Sendable, Hashable, Codable {
        /// The configured endpoint, and the URL that answered (the alternate, perhaps).
        public var endpoint: String
        /// The URL that answered.
        public var url: String
        /// Whether it could serve reads.
        public var usable: Bool
        /// Its average latency in microseconds, when it answered.
        public var latencyMicros: Int64?
    }

    /// When it was measured, Unix milliseconds.
    public var measuredAt: Int64
    /// Every configured node, in list order.
    public var nodes: [Node]

    /// Whether it is younger than `maximumAge` at `now` (a snapshot from the future, after the
    /// clock was set back, is not).
    public func isFresh(at now: Int64, maximumAge: Duration) -> Bool {
        let age = now &- measuredAt
        return age >= 0 && Duration.milliseconds(age) <= maximumAge
    }
}

extension NodePool {
    /// What this process's last health check found; nil when none ran here (an adopted
    /// snapshot is not measured again by being passed on).
    public func healthSnapshot() -> HealthSnapshot? {
        state.withLock { state -> HealthSnapshot? in
            guard state.hasMeasured else { return nil }
            return HealthSnapshot(
                measuredAt: state.measuredAt,
                nodes: state.reports.map { report in
                    HealthSnapshot.Node(
                        endpoint: report.endpoint.url.description, url: report.url.description,
                        usable: report.health.isUsable,
                        latencyMicros: report.latency.map { $0 / .microseconds(1) }.map { Int64($0) })
                })
        }
    }

    /// Ranks nodes as `snapshot` found them, with no check of its own, until an answer fails:
    /// then the next request checks every node. Adopts nothing, and returns false, when the
    /// snapshot names no usable node of this pool. Only reads use adopted nodes; stamping a
    /// transaction needs a measured clock, so a write checks first.
    @discardableResult
    public func adopt(_ snapshot: HealthSnapshot) -> Bool {
        state.withLock { $0.adopt(snapshot) }
    }
}
