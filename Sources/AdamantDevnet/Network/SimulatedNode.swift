import AdamantCore
import Foundation
import Synchronization

/// What every node shares: one ledger, one clock, one log.
final class SharedChain: Sendable {
    let ledger: Mutex<Ledger>
    let clock: any DevnetClock
    let log: (@Sendable (String) -> Void)?

    init(ledger: Ledger, clock: any DevnetClock, log: (@Sendable (String) -> Void)?) {
        self.ledger = Mutex(ledger)
        self.clock = clock
        self.log = log
    }
}

/// One line of a node's request log.
public struct RequestRecord: Sendable, Hashable {
    public let method: String
    public let path: String
    /// nil when the request was never answered.
    public let status: Int?
}

/// One simulated node: a libmicrohttpd server on its own port over the shared chain, with the
/// faults it was given.
final class SimulatedNode: Sendable {
    let index: Int
    private let server: HTTPServer
    private let state: NodeState
    /// The bound port, kept across a `refuse` so the node comes back where it was. The lock also
    /// serialises starting and stopping.
    private let port = Mutex<UInt16>(0)

    init(index: Int, chain: SharedChain, version: NodeVersion, nethash: String) {
        self.index = index
        let state = NodeState(index: index, chain: chain, base: NodeProfile(version: version, nethash: nethash))
        self.state = state
        server = HTTPServer { request, server in state.handle(request, server: server) }
    }

    var url: String { "http://127.0.0.1:\(port.withLock { $0 })" }

    /// Binds a free port, and closes it again at once if the node starts refused.
    func start() throws(HTTPServer.StartError) {
        try port.withLock { port throws(HTTPServer.StartError) in
            port = try server.start()
            if state.faults.contains(where: { $0.effect == .refuse }) { server.stop() }
        }
    }

    func stop() {
        port.withLock { _ in server.stop() }
    }

    var faults: [Fault] { state.faults }
    var requests: [RequestRecord] { state.requests.withLock { $0 } }
    func clearRequests() { state.requests.withLock { $0.removeAll() } }

    /// Adds a fault, replacing one of the same kind and scope.
    func add(_ fault: Fault) throws(HTTPServer.StartError) {
        state.update { faults in
            faults.removeAll { $0.kind == fault.kind && $0.pathPrefix == fault.pathPrefix }
            faults.append(fault)
        }
        try syncListening()
    }

    /// Clears every fault, or those of one kind.
    func clearFaults(kind: String? = nil) throws(HTTPServer.StartError) {
        state.update { faults in faults.removeAll { kind == nil || $0.kind == kind } }
        try syncListening()
    }

    /// `refuse` means the port is really closed: stop the daemon, and restart it on the same
    /// port once the fault is gone. Before `start()` there is no port yet (0), and nothing to do.
    private func syncListening() throws(HTTPServer.StartError) {
        let refused = state.faults.contains { $0.effect == .refuse }
        try port.withLock { port throws(HTTPServer.StartError) in
            guard port != 0 else { return }
            if refused, server.isRunning { server.stop() }
            if !refused, !server.isRunning { _ = try server.start(port: port) }
        }
    }
}

/// A node's faults and request log, and how it answers.
private final class NodeState: Sendable {
    let index: Int
    let chain: SharedChain
    let base: NodeProfile
    private let faultList = Mutex<[Fault]>([])
    let requests = Mutex<[RequestRecord]>([])
    static let maxLoggedRequests = 10_000

    init(index: Int, chain: SharedChain, base: NodeProfile) {
        self.index = index
        self.chain = chain
        self.base = base
    }

    var faults: [Fault] { faultList.withLock { $0 } }
    func update(_ change: (inout [Fault]) -> Void) { faultList.withLock { change(&$0) } }

    func handle(_ request: HTTPRequest, server: HTTPServer) -> HTTPReply {
        let effects = faults.filter { $0.applies(to: request.path) }.map(\.effect)
        if effects.contains(.blackhole) {
            record(request, status: nil)
            hold { server.isStopping || !self.faults.contains { $0.effect == .blackhole && $0.applies(to: request.path) } }
            return .hangUp
        }
        for case .delay(let milliseconds) in effects {
            let deadline = DispatchTime.now() + .milliseconds(milliseconds)
            hold { server.isStopping || DispatchTime.now() >= deadline }
        }
        if let canned = Self.cannedResponse(for: effects, request: request) {
            record(request, status: canned.status)
            return .respond(canned)
        }

        let profile = profile(with: effects)
        let now = chain.clock.unixMillis() + profile.clockSkewMillis
        let answer = chain.ledger.withLock { NodeAPI(profile: profile, nowUnixMillis: now).answer(request, ledger: &$0) }
        if let event = answer.event { chain.log?("node \(index) \(request.method) \(request.path): \(event)") }
        switch answer.reply {
        case .never:
            record(request, status: nil)
            hold { server.isStopping }
            return .hangUp
        case .respond(var response):
            Self.distort(&response, by: effects)
            record(request, status: response.status)
            return .respond(response)
        }
    }

    private func profile(with effects: [Fault.Effect]) -> NodeProfile {
        var profile = base
        for effect in effects {
            switch effect {
            case .lag(let blocks): profile.heightLag = Int64(blocks)
            case .nethash(let hash): profile.nethash = hash
            case .version(let version): profile.version = version
            case .skew(let seconds): profile.clockSkewMillis = Int64(seconds) * 1000
            case .tamper: profile.tampersTransactions = true
            case .drop: profile.dropsSubmissions = true
            case .timeoutAfterAccept: profile.hangsAfterAccepting = true
            default: break
            }
        }
        return profile
    }

    /// Replies that never reach the node's handlers: its middleware's errors, or a proxy's.
    private static func cannedResponse(for effects: [Fault.Effect], request: HTTPRequest) -> HTTPResponse? {
        for effect in effects {
            switch effect {
            case .status(500): return .json(["success": false, "error": "API error: Connection terminated unexpectedly"], status: 500)
            case .status(403): return .json(["success": false, "error": "API access denied"], status: 403)
            case .status(429): return .text("Too many requests, please try again later.", status: 429)
            case .status(let code): return .json(["success": false], status: code)
            case .html404: return NodeAPI.expressNotFound(method: request.method, path: request.path)
            default: continue
            }
        }
        return nil
    }

    private static func distort(_ response: inout HTTPResponse, by effects: [Fault.Effect]) {
        for effect in effects {
            switch effect {
            case .garbage: response.body = Array(#"{"success":true,"nodeTimestamp":<!-- not json -->"#.utf8)
            case .truncate: response.delivery = .truncated
            case .trickle(let milliseconds): response.delivery = .trickled(millisecondsPerByte: milliseconds)
            default: continue
            }
        }
    }

    private func record(_ request: HTTPRequest, status: Int?) {
        requests.withLock { log in
            if log.count >= Self.maxLoggedRequests { log.removeFirst() }
            log.append(RequestRecord(method: request.method, path: request.path, status: status))
        }
    }

    /// Keeps the connection's thread waiting until `done`, checking every 10 ms.
    private func hold(until done: () -> Bool) {
        while !done() { usleep(10_000) }
    }
}
