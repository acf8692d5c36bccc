import AdamantCore

/// The pool's knowledge, as a value: what health checks found and how fast nodes answered.
struct PoolState: Sendable {
    private(set) var reports: [NodeReport]
    private var hasChecked = false
    /// Ranked from another process's snapshot, not measured here.
    private var adopted = false
    private(set) var hasMeasured = false
    private(set) var measuredAt: Int64 = 0

    init(endpoints: [NodeEndpoint]) { reports = endpoints.map(NodeReport.init) }

    /// Before the first check, or when nothing is usable, a request should check first.
    var needsCheck: Bool { !hasChecked || !reports.contains { $0.health.isUsable } }

    /// Stamping needs clocks measured here: adopted health is for reads only.
    func needsCheck(forStamping: Bool) -> Bool { needsCheck || (forStamping && adopted) }

    /// Takes the usable nodes of `snapshot` that this pool has, with their latencies.
    mutating func adopt(_ snapshot: HealthSnapshot) -> Bool {
        guard !hasChecked else { return false }
        var any = false
        for node in snapshot.nodes where node.usable {
            guard let index = reports.firstIndex(where: { $0.endpoint.url.description == node.endpoint }),
                let url = reports[index].endpoint.urls.first(where: { $0.description == node.url })
            else { continue }
            reports[index].url = url
            reports[index].health = .usable
            if let micros = node.latencyMicros, (0...60_000_000).contains(micros) {
                reports[index].averageLatency.add(.microseconds(micros))
            }
            any = true
        }
        if any { (hasChecked, adopted) = (true, true) }
        return any
    }

    /// A node failed an answer: adopted health is no longer trusted, and the next request
    /// checks every node.
    mutating func distrustAdopted() {
        guard adopted else { return }
        adopted = false
        hasChecked = false
        for index in reports.indices { reports[index].health = .unchecked }
    }

    /// Nodes that may serve reads (or, `forStamping`, also stamp transactions), fastest
    /// first; unmeasured ones last; list order breaks ties.
    func ranked(forStamping: Bool = false) -> [NodeReport] {
        reports.enumerated()
            .filter { forStamping ? $0.element.health.canStamp : $0.element.health.isUsable }
            .sorted { a, b in
                switch (a.element.latency, b.element.latency) {
                case (let x?, let y?) where x != y: x < y
                case (_?, nil): true
                case (nil, _?): false
                default: a.offset < b.offset
                }
            }
            .map(\.element)
    }

    /// One probe per report, in order.
    mutating func apply(_ probes: [StatusProbe], rules: HealthRules) {
        let verdicts = rules.assess(probes)
        for index in reports.indices {
            let probe = probes[index]
            // A probe the proxy failed says nothing of the node: what an earlier check found
            // stands (a request may still fail on the proxy).
            if case .failure(let failure) = probe.result, failure.isTheProxys, reports[index].health != .unchecked {
                continue
            }
            reports[index].url = probe.url
            reports[index].health = verdicts[index]
            if case .success(let status) = probe.result {
                reports[index].status = status
                reports[index].clock = probe.clock
                reports[index].averageLatency.add(probe.latency)
            }
        }
        hasChecked = true
        adopted = false
    }

    mutating func recordMeasurement(at unixMillis: Int64) {
        hasMeasured = true
        measuredAt = unixMillis
    }

    mutating func addLatency(_ sample: Duration, for url: NodeURL) {
        guard let index = reports.firstIndex(where: { $0.url == url }) else { return }
        reports[index].averageLatency.add(sample)
    }
}

/// One node's answer to `/api/node/status`, or why there was none.
struct StatusProbe: Sendable {
    var url: NodeURL
    var result: Result<NodeStatus, ProbeFailure>
    /// On the wire, queueing left out.
    var latency: Duration
    /// From the status's timestamps, taken when the answer arrived: one-way latency makes the
    /// node look slightly behind, which only makes our stamps earlier, never future.
    var clock: NodeClock?

    init(url: NodeURL, result: Result<NodeStatus, ProbeFailure>, latency: Duration = .zero, clock: NodeClock? = nil) {
        self.url = url
        self.result = result
        self.latency = latency
        self.clock = clock
    }
}
