public import AdamantCore
import Foundation
import Synchronization

/// The configured nodes, their health, speed and clocks, and the policies that use them:
/// hedged reads (`NodePool+Read`) and classified writes (`NodePool+Write`).
public final class NodePool: Sendable {
    public struct Configuration: Sendable {
        /// For each `/api/node/status` probe; a node slower than this is offline.
        public var statusTimeout: Duration = .seconds(3)
        public var connectTimeout: Duration = .seconds(2)
        /// For one API request; an operation's deadline may cut it shorter.
        public var requestTimeout: Duration = .seconds(10)
        /// A hedge fires after twice the best node's average latency, within these bounds.
        public var hedgeDelayBounds: ClosedRange<Duration> = .milliseconds(50) ... .seconds(1)
        /// Counted as a latency sample for a node whose attempt failed, so it sinks in the ranking.
        public var failurePenalty: Duration = .seconds(1)
        public var minimumVersion = NodeVersion.minimumSupported
        public var heightTolerance: Int64 = 10
        /// The local wall clock in Unix milliseconds; injectable to test a skewed device clock.
        public var wallClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

        public init() {}
    }

    public let nodes: NodeList
    let transport: any HTTPTransport
    let configuration: Configuration
    let log: any LogSink
    private let state: Mutex<PoolState>
    private let healthCheck = SingleFlight()

    public init(
        nodes: NodeList, transport: any HTTPTransport = CurlTransport(), configuration: Configuration = .init(),
        log: any LogSink = SilentLog()
    ) {
        self.nodes = nodes
        self.transport = transport
        self.configuration = configuration
        self.log = log
        state = Mutex(PoolState(endpoints: nodes.endpoints))
    }

    /// What is known about every node now, in list order.
    public var reports: [NodeReport] { state.withLock { $0.reports } }

    /// Checks every node at once (a check already running is joined, not repeated).
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
            try? await Task.sleep(for: usable ? interval : retryInterval)
        }
    }

    // MARK: For the request policies

    /// Usable nodes, best first, checking health first when that is due.
    func usableNodes() async -> Result<[NodeReport], NodeError> {
        if state.withLock({ $0.needsCheck }) { await checkHealth() }
        let (ranked, reports) = state.withLock { ($0.ranked, $0.reports) }
        return ranked.isEmpty ? .failure(.noUsableNode(reports)) : .success(ranked)
    }

    /// The same, for an operation that must end by `deadline`, health check included.
    func usableNodes(until deadline: ContinuousClock.Instant) async throws(NodeError) -> [NodeReport] {
        switch await untilDeadline(deadline, { await self.usableNodes() }) {
        case .success(let nodes)?: return nodes
        case .failure(let error)?: throw error
        case nil: throw Task.isCancelled ? .cancelled : .deadlineExceeded([])
        }
    }

    /// How long to wait for `leader` before asking the next node too.
    func hedgeDelay(after leader: NodeReport) -> Duration {
        let bounds = configuration.hedgeDelayBounds
        guard let latency = leader.latency else { return bounds.upperBound }
        return min(max(latency * 2, bounds.lowerBound), bounds.upperBound)
    }

    func recordAnswer(from url: NodeURL, after elapsed: Duration) {
        state.withLock { $0.addLatency(elapsed, for: url) }
    }

    func recordFailure(of url: NodeURL, reason: String) {
        log.log(.info, "\(url) failed: \(reason)")
        state.withLock { $0.addLatency(configuration.failurePenalty, for: url) }
    }

    /// A request failed on every node: re-check in the background, without making the caller wait.
    func noteEveryNodeFailed() {
        healthCheck.trigger { [self] in await runHealthCheck() }
    }

    var localUnixMillis: Int64 { configuration.wallClock() }

    // MARK: Health check

    private func runHealthCheck() async {
        let endpoints = nodes.endpoints
        let probes = await withTaskGroup(of: (Int, StatusProbe).self) { group in
            for (index, endpoint) in endpoints.enumerated() {
                group.addTask { (index, await self.probe(endpoint)) }
            }
            var byIndex: [Int: StatusProbe] = [:]
            for await (index, probe) in group { byIndex[index] = probe }
            return endpoints.indices.compactMap { byIndex[$0] }
        }
        let rules = HealthRules(
            nethash: nodes.nethash, minimumVersion: configuration.minimumVersion, heightTolerance: configuration.heightTolerance)
        let reports = state.withLock { state in
            state.apply(probes, rules: rules)
            return state.reports
        }
        for report in reports { log.log(report.health.isUsable ? .debug : .info, "\(report.url): \(report.health)") }
        log.log(.info, "health check: \(reports.count { $0.health.isUsable }) of \(reports.count) nodes usable")
    }

    /// The main URL, then the alternate if the main one gives no status.
    private func probe(_ endpoint: NodeEndpoint) async -> StatusProbe {
        let main = await probe(endpoint.url)
        guard case .failure = main.result, let alternate = endpoint.alternate else { return main }
        let fallback = await probe(alternate)
        guard case .success = fallback.result else { return main }
        return fallback
    }

    private func probe(_ url: NodeURL) async -> StatusProbe {
        let started = ContinuousClock.now
        let request = HTTPRequest(
            url: url.endpoint("/api/node/status"), timeout: configuration.statusTimeout,
            connectTimeout: configuration.connectTimeout)
        let answer: HTTPAnswer
        do { answer = try await transport.send(request) } catch {
            return StatusProbe(url: url, result: .failure(ProbeFailure(reason: error.description)), latency: started.duration(to: .now))
        }
        let receivedAt = localUnixMillis, latency = started.duration(to: .now)
        let result: Result<NodeStatus, ProbeFailure>
        switch NodeReply(answer) {
        case .success(let body):
            do { result = .success(try JSONDecoder().decode(NodeStatus.self, from: Data(body))) } catch {
                result = .failure(ProbeFailure(reason: "not a node status (\(error))"))
            }
        case .failure(let message, let status):
            result = .failure(ProbeFailure(reason: "HTTP \(status): \(message.isEmpty ? "success: false" : message)"))
        case .notFromNode(let reason):
            result = .failure(ProbeFailure(reason: reason))
        }
        let clock = (try? result.get()).flatMap {
            NodeClock(localUnixMillis: receivedAt, nodeTimestampMs: $0.nodeTimestampMs, nodeTimestamp: $0.nodeTimestamp)
        }
        return StatusProbe(url: url, result: result, latency: latency, clock: clock)
    }
}
