public import AdamantCore
import Synchronization

/// The configured nodes, their health, speed and clocks, and the policies that use them:
/// hedged reads and classified writes, which every `NodeClient` call goes through.
public final class NodePool: Sendable {
    /// The pool's timeouts, bounds and tolerances. The defaults are those of `adm-push`.
    public struct Configuration: Sendable {
        /// For each `/api/node/status` probe; a node slower than this is offline.
        public var statusTimeout: Duration = .seconds(3)
        /// For a whole health check, queueing for a connection slot included: a node not
        /// checked by then is offline for this check.
        public var healthCheckDeadline: Duration = .seconds(5)
        /// For opening a connection to a node.
        public var connectTimeout: Duration = .seconds(2)
        /// For one API request; an operation's deadline may cut it shorter.
        public var requestTimeout: Duration = .seconds(10)
        /// A hedge fires after twice the best node's average latency, within these bounds.
        public var hedgeDelayBounds: ClosedRange<Duration> = .milliseconds(50) ... .seconds(1)
        /// Counted as a latency sample for a node whose attempt failed, so it sinks in the ranking.
        public var failurePenalty: Duration = .seconds(1)
        /// Older nodes are `NodeHealth.outdated`: 0.8.0.
        public var minimumVersion = NodeVersion.minimumSupported
        /// Blocks a node may be behind or ahead of the largest group of agreeing heights.
        public var heightTolerance: Int64 = 10
        /// A node whose clock is further than this from the other nodes' (or, alone, from this
        /// device's) does not stamp transactions: the 0.10 past window.
        public var clockTolerance: Duration = .seconds(5)
        /// Straight to the nodes, or through which proxy for each.
        public var route: ResolvedRoute = .direct
        /// Whether the route goes through a proxy (the environment's too): the timings allow for it.
        public var isProxied = false
        /// Through a proxy, each timeout above is this many times the latency measured on it,
        /// within its direct value and that plus `circuitAllowance` (see `NodePool.allowing(_:)`).
        public var latencyFactor = 5
        /// Through a proxy, how much longer than direct anything may take: all of it before any
        /// latency is measured, since a first circuit takes seconds to build.
        public var circuitAllowance: Duration = .seconds(35)
        /// The SOCKS username of every request: one per account keeps accounts on separate
        /// Tor circuits (see `HTTPRequest.circuit`).
        public var circuit: String?

        /// The defaults.
        public init() {}

        /// The defaults for requests through `route`. Through a proxy, Tor builds a circuit
        /// before a first request leaves, which takes seconds: the timeouts follow the latency
        /// measured on the route (`NodePool.allowing(_:)`), and the hedge delay, which follows
        /// it from the same floor, may grow as far as a circuit's seconds.
        public init(route: ResolvedRoute, proxied: Bool) {
            self.route = route
            isProxied = proxied
            guard proxied else { return }
            hedgeDelayBounds = hedgeDelayBounds.lowerBound ... .seconds(10)
            failurePenalty = .seconds(10)
        }
    }

    /// The nodes this pool uses, and the network it accepts.
    public let nodes: NodeList
    let transport: any HTTPTransport
    let configuration: Configuration
    /// Every deadline, timeout and delay of the pool's policies is measured on this clock, and
    /// so are the waits of whatever works through the pool (fetches, watches, the outbox).
    public let clock: AnyClock
    /// Stamps transactions (through each node's clock delta).
    let wallClock: any WallClock
    /// Both, as one value for what reads the nodes through this pool.
    public var clocks: Clocks { Clocks(wall: wallClock, monotonic: clock) }
    let log: any LogSink
    let state: Mutex<PoolState>
    private let healthCheck = SingleFlight()
    private let proxyTrail = Mutex(ProxyTrail())

    /// A pool of `nodes`, none checked yet: the first request that needs a node checks them all.
    ///
    /// - Parameters:
    ///   - nodes: the nodes to use, and the network to accept.
    ///   - transport: moves the HTTP exchanges; libcurl unless a test scripts them.
    ///   - configuration: timeouts, bounds and tolerances.
    ///   - clock: for deadlines, hedging delays, monitor intervals and the waits of the
    ///     clients built on the pool; a test passes a `ManualClock` to step through them.
    ///   - wallClock: this device's calendar time, compared with each node's.
    ///   - log: hears about failed nodes and health checks.
    public init(
        nodes: NodeList, transport: any HTTPTransport = CurlTransport(), configuration: Configuration = .init(),
        clock: some Clock<Duration> = AnyClock.continuous, wallClock: any WallClock = SystemWallClock(),
        log: any LogSink = SilentLog()
    ) {
        self.nodes = nodes
        self.transport = transport
        self.configuration = configuration
        self.clock = (clock as? AnyClock) ?? AnyClock(clock)
        self.wallClock = wallClock
        self.log = log
        state = Mutex(PoolState(endpoints: nodes.endpoints))
    }

    /// How the pool's requests reach the nodes.
    public var route: ResolvedRoute { configuration.route }
    /// Whether the requests go through a proxy.
    public var isProxied: Bool { configuration.isProxied }

    /// How long to allow for what takes `direct` on a direct route. Through a proxy, as long
    /// as the route has shown it needs: `latencyFactor` times the best node's latency measured
    /// on it, never less than `direct`, never more than `direct` + `circuitAllowance`; that
    /// most before anything is measured, since a first circuit takes seconds to build.
    public func allowing(_ direct: Duration) -> Duration {
        guard configuration.isProxied else { return direct }
        let most = direct + configuration.circuitAllowance
        guard let latency = state.withLock({ $0.ranked().first?.latency }) else { return most }
        return min(max(latency * configuration.latencyFactor, direct), most)
    }

    /// A command's default deadline for what takes `direct` on a direct route: through a proxy,
    /// `allowing(direct)` once the route's latency is measured, and `direct` before. The
    /// allowance for a first circuit lets each request wait for it within the deadline; it
    /// never makes the user wait longer than the command says.
    public func allowingDeadline(_ direct: Duration) -> Duration {
        state.withLock { $0.ranked().first?.latency } == nil ? direct : allowing(direct)
    }

    /// What is known about every node now, in list order.
    public var reports: [NodeReport] { state.withLock { $0.reports } }

    /// Checks every node at once (a check already running is joined, not repeated), within
    /// `configuration.healthCheckDeadline`.
    @discardableResult
    public func checkHealth() async -> [NodeReport] {
        await healthCheck.run { [self] in await runHealthCheck() }
        return reports
    }

    /// Re-checks health every `interval` (every `retryInterval` while no node is usable) until
    /// the calling task is cancelled. Run it alongside a long-lived client, e.g. `watch`.
    public func monitor(every interval: Duration = .seconds(300), retryInterval: Duration = .seconds(30)) async {
        while !Task.isCancelled {
            let reports = await checkHealth()
            let usable = reports.contains { $0.health.isUsable }
            try? await clock.sleep(until: clock.now + (usable ? interval : retryInterval))
        }
    }

    // MARK: For the request policies

    /// Nodes that may serve reads (or, `forStamping`, also stamp transactions), best first,
    /// checking health first when that is due.
    func usableNodes(forStamping: Bool = false) async -> Result<[NodeReport], NodeError> {
        if state.withLock({ $0.needsCheck(forStamping: forStamping) }) { await checkHealth() }
        let (ranked, reports) = state.withLock { ($0.ranked(forStamping: forStamping), $0.reports) }
        return ranked.isEmpty ? .failure(.noUsableNode(reports)) : .success(ranked)
    }

    /// The same, for an operation that must end by `deadline`, health check included.
    func usableNodes(forStamping: Bool = false, until deadline: AnyClock.Instant) async throws(NodeError)
        -> [NodeReport]
    {
        switch await untilDeadline(deadline, on: clock, { await self.usableNodes(forStamping: forStamping) }) {
        case .success(let nodes)?: return nodes
        case .failure(let error)?: throw blamingTheProxy(error)
        case nil: throw Task.isCancelled ? .cancelled : blamingTheProxy(.deadlineExceeded([]))
        }
    }

    /// How long to wait for `leader` before asking the next node too.
    func hedgeDelay(after leader: NodeReport) -> Duration {
        let bounds = configuration.hedgeDelayBounds
        guard let latency = leader.latency else { return bounds.upperBound }
        return min(max(latency * 2, bounds.lowerBound), bounds.upperBound)
    }

    /// Sends `request`, keeping what came of it through its proxy.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        proxyTrail.withLock { $0.sent(request, at: clock.now) }
        do throws(TransportError) {
            let answer = try await transport.send(request)
            proxyTrail.withLock { $0.ended(request, .success(answer)) }
            return answer
        } catch {
            proxyTrail.withLock { $0.ended(request, .failure(error)) }
            throw error
        }
    }

    /// `error`, or the proxy's failure when every request went through it and nothing came
    /// through: the nodes were never reached, and naming each of them would mislead.
    func blamingTheProxy(_ error: NodeError) -> NodeError {
        switch error {
        case .noUsableNode, .allNodesFailed, .deadlineExceeded:
            return proxyTrail.withLock { $0.fault(at: clock.now) }.map(NodeError.proxyFailed) ?? error
        case .refused, .cancelled, .proxyFailed:
            return error
        }
    }

    func recordAnswer(from url: NodeURL, after elapsed: Duration) {
        state.withLock { $0.addLatency(elapsed, for: url) }
    }

    func recordFailure(of url: NodeURL, _ kind: NodeFailure.Kind) {
        if case .noAnswer(.proxyFailed(let proxy, let reason)) = kind {
            // The node was never reached: its rank, and the health adopted for it, stand.
            log.log(.info, "the proxy \(proxy) failed: \(reason) (asking \(url))")
            return
        }
        log.log(.info, "\(url) failed: \(kind)")
        state.withLock {
            $0.addLatency(configuration.failurePenalty, for: url)
            $0.distrustAdopted()
        }
    }

    /// A request failed on every node: re-check in the background, without making the caller wait.
    func noteEveryNodeFailed() {
        healthCheck.trigger { [self] in await runHealthCheck() }
    }

    package var localUnixMillis: Int64 { wallClock.unixMillis() }

    // MARK: Health check

    private func runHealthCheck() async {
        let endpoints = nodes.endpoints
        let deadline = clock.now + allowing(configuration.healthCheckDeadline)
        let (statusTimeout, connectTimeout) = (
            allowing(configuration.statusTimeout), allowing(configuration.connectTimeout)
        )
        let probes = await withTaskGroup(of: (index: Int, probe: StatusProbe)?.self) { group in
            group.addTask { [clock] in
                try? await clock.sleep(until: deadline)
                return nil
            }
            for (index, endpoint) in endpoints.enumerated() {
                group.addTask {
                    (index, await self.probe(endpoint, until: deadline, timeouts: (statusTimeout, connectTimeout)))
                }
            }
            var byIndex: [Int: StatusProbe] = [:]
            while byIndex.count < endpoints.count, let finished = await group.next() {
                guard let finished else { break }  // the deadline: the rest were too late
                byIndex[finished.index] = finished.probe
            }
            group.cancelAll()
            return endpoints.enumerated().map { index, endpoint in
                byIndex[index]
                    ?? StatusProbe(url: endpoint.url, result: .failure(ProbeFailure(kind: .noAnswer(.timedOut))))
            }
        }
        let rules = HealthRules(
            nethash: nodes.nethash, minimumVersion: configuration.minimumVersion,
            heightTolerance: configuration.heightTolerance,
            clockToleranceMillis: configuration.clockTolerance.wholeMilliseconds)
        let reports = state.withLock { state in
            state.apply(probes, rules: rules)
            state.recordMeasurement(at: wallClock.unixMillis())
            return state.reports
        }
        for report in reports {
            let level: LogLevel =
                switch report.health {
                case .usable: .debug
                case .clockOff, .badAnswer, .notANode, .noMajorityNetwork: .warning
                default: .info
                }
            log.log(level, "\(report.url): \(report.health)")
        }
        log.log(.info, "health check: \(reports.count { $0.health.isUsable }) of \(reports.count) nodes usable")
    }

    /// The main URL, then the alternate if the main one gives no status.
    private func probe(
        _ endpoint: NodeEndpoint, until deadline: AnyClock.Instant, timeouts: (status: Duration, connect: Duration)
    ) async -> StatusProbe {
        let main = await probe(endpoint.url, until: deadline, timeouts: timeouts)
        guard case .failure = main.result else { return main }
        for alternate in endpoint.urls.dropFirst() {
            let fallback = await probe(alternate, until: deadline, timeouts: timeouts)
            if case .success = fallback.result { return fallback }
        }
        return main
    }

    private func probe(
        _ url: NodeURL, until deadline: AnyClock.Instant, timeouts: (status: Duration, connect: Duration)
    ) async -> StatusProbe {
        let started = clock.now
        let timeout = min(timeouts.status, started.duration(to: deadline))
        guard timeout > .zero else {
            return StatusProbe(url: url, result: .failure(ProbeFailure(kind: .noAnswer(.timedOut))))
        }
        let request = HTTPRequest(
            url: url.endpoint("/api/node/status"), timeout: timeout, connectTimeout: timeouts.connect,
            hop: configuration.route.hop(to: url), circuit: configuration.circuit)
        let answer: HTTPAnswer
        do { answer = try await send(request) } catch {
            return StatusProbe(url: url, result: .failure(ProbeFailure(kind: .noAnswer(error))))
        }
        // The node's clock as of when its answer arrived: a task resumed seconds later (a
        // loaded device) would otherwise take those seconds for the node's clock being behind,
        // and stamp every chat that much in the past until the next health check.
        let late = answer.arrivedAt.map { max($0.duration(to: .now), .zero) } ?? .zero
        let receivedAt = localUnixMillis.saturatingSubtract(late.wholeMilliseconds)
        let latency = answer.wireTime ?? started.duration(to: clock.now)
        let result: Result<NodeStatus, ProbeFailure>
        switch NodeReply(answer) {
        case .success(let body):
            do { result = .success(try JSONCoding.decode(NodeStatus.self, from: body)) } catch {
                result = .failure(ProbeFailure(kind: .badAnswer(AnswerText.decoding(error))))
            }
        case .failure(let message, let status):
            result = .failure(ProbeFailure(kind: .nodeError(message: message, status: status)))
        case .notFromNode(let reason):
            result = .failure(ProbeFailure(kind: .notANode(reason)))
        case .malformed(let reason):
            result = .failure(ProbeFailure(kind: .badAnswer(reason)))
        }
        let clock = (try? result.get()).flatMap {
            NodeClock(localUnixMillis: receivedAt, nodeTimestampMs: $0.nodeTimestampMs, nodeTimestamp: $0.nodeTimestamp)
        }
        return StatusProbe(url: url, result: result, latency: latency, clock: clock)
    }
}
