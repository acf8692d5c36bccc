import AdamantCore
import Foundation
import Synchronization

/// What every node shares: one ledger, one clock, one log, and the sockets that announce what
/// the pool admits.
final class SharedChain: Sendable {
    let ledger: Mutex<Ledger>
    let clock: any WallClock
    let log: (@Sendable (String) -> Void)?
    private let sockets = Mutex<[SocketHub]>([])
    private let listeners = Mutex<[@Sendable ([Transaction]) -> [String]]>([])

    init(ledger: Ledger, clock: any WallClock, log: (@Sendable (String) -> Void)?) {
        self.ledger = Mutex(ledger)
        self.clock = clock
        self.log = log
    }

    func announce(on hub: SocketHub) { sockets.withLock { $0.append(hub) } }

    /// Adds a socket client every node has, told of each admission in admission order; it
    /// returns log lines.
    func listen(_ listener: @escaping @Sendable ([Transaction]) -> [String]) {
        listeners.withLock { $0.append(listener) }
    }

    /// Hands what the pool admitted to every node's socket: the pool is shared, so a transaction
    /// posted to one node is one every node has admitted, as if relayed at once.
    /// Under the ledger's lock, which the hubs' JSON reads (a recipient's key): a copy of the
    /// ledger taken out of it would make the next change copy the whole chain. The lock also
    /// keeps the listeners' order the pool's when two nodes admit at once.
    func announceAdmissions() {
        let hubs = sockets.withLock { $0 }
        let listeners = listeners.withLock { $0 }
        let lines = ledger.withLock { ledger in
            let admitted = ledger.takeAdmissions()
            guard !admitted.isEmpty else { return [String]() }
            for hub in hubs { hub.admitted(admitted, ledger: ledger) }
            return listeners.flatMap { $0(admitted) }
        }
        for line in lines { log?(line) }
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
    private let socket: SocketHub
    private let state: NodeState
    /// Whether the node has been started; the lock also serialises starting and stopping.
    private let started = Mutex(false)

    /// Takes the node's ports (its API's and its socket's) at once; they are held, listening or
    /// not, until the node goes away.
    init(
        index: Int, chain: SharedChain, version: NodeVersion, nethash: String, limits: HTTPServer.Limits,
        heartbeat: SocketHub.Heartbeat
    ) throws(HTTPServer.StartError) {
        self.index = index
        let faults = FaultList()
        let socket = try SocketHub(heartbeat: heartbeat, limits: limits)
        var base = NodeProfile(version: version, nethash: nethash)
        base.socketPort = socket.port
        // The socket writes transactions as the node's answers do, faults included.
        socket.node = SocketHub.Node(
            render: { [base] transaction, ledger, forged in
                var profile = NodeState.profile(base, with: faults.all.map(\.effect))
                profile.tampersTransactions = profile.tampersTransactions || forged
                return TransactionJSON(profile: profile, ledger: ledger).admitted(transaction)
            },
            effects: { faults.all.map(\.effect) })
        self.socket = socket
        state = NodeState(index: index, chain: chain, base: base, faults: faults)
        server = try HTTPServer(limits: limits) { [state] request, connection in
            state.handle(request, connection: connection)
        }
        chain.announce(on: socket)
    }

    var url: String { "http://127.0.0.1:\(server.port.number)" }

    /// Listens, unless the node is refused: then its port stays closed from the first instant.
    func start() throws(HTTPServer.StartError) {
        try started.withLock { started throws(HTTPServer.StartError) in
            started = true
            try syncListening()
        }
    }

    func stop() {
        started.withLock { started in
            started = false
            server.stop()
            socket.stop()
        }
    }

    var faults: [Fault] { state.faults }
    var requests: [RequestRecord] { state.requests.withLock { $0 } }
    var connectionsAccepted: Int { server.connectionsAccepted }
    var socketRequests: Int { socket.requestsHandled }
    var socketSubscriptions: [Set<Address>] { socket.subscriptions }
    func clearRequests() { state.requests.withLock { $0.removeAll() } }

    /// Adds a fault, replacing one of the same kind and scope.
    func add(_ fault: Fault) throws(HTTPServer.StartError) {
        state.update { faults in
            faults.removeAll { $0.kind == fault.kind && $0.pathPrefix == fault.pathPrefix }
            faults.append(fault)
        }
        try started.withLock { started throws(HTTPServer.StartError) in if started { try syncListening() } }
    }

    /// Clears every fault, or those of one kind.
    func clearFaults(kind: String? = nil) throws(HTTPServer.StartError) {
        state.update { faults in faults.removeAll { kind == nil || $0.kind == kind } }
        try started.withLock { started throws(HTTPServer.StartError) in if started { try syncListening() } }
    }

    /// `refuse` means the port is really closed: stop listening (the port stays held), and
    /// listen again once the fault is gone. Called with `started` locked.
    private func syncListening() throws(HTTPServer.StartError) {
        let effects = state.faults.map(\.effect)
        if effects.contains(.refuse) { server.stop() } else { try server.start() }
        if effects.contains(.refuse) || effects.contains(.socketRefuse) { socket.stop() } else { try socket.start() }
    }
}

/// A node's faults, shared by its API and its socket.
private final class FaultList: Sendable {
    private let list = Mutex<[Fault]>([])
    var all: [Fault] { list.withLock { $0 } }
    func update(_ change: (inout [Fault]) -> Void) { list.withLock { change(&$0) } }
}

/// A node's faults and request log, and how it answers.
private final class NodeState: Sendable {
    let index: Int
    let chain: SharedChain
    let base: NodeProfile
    private let faultList: FaultList
    let requests = Mutex<[RequestRecord]>([])
    static let maxLoggedRequests = 10_000

    init(index: Int, chain: SharedChain, base: NodeProfile, faults: FaultList) {
        self.index = index
        self.chain = chain
        self.base = base
        faultList = faults
    }

    var faults: [Fault] { faultList.all }
    func update(_ change: (inout [Fault]) -> Void) { faultList.update(change) }

    func handle(_ request: HTTPRequest, connection: HeldConnection) -> HTTPReply {
        let effects = faults.filter { $0.applies(to: request.path) }.map(\.effect)
        if effects.contains(.blackhole) {
            record(request, status: nil)
            _ = hold(connection, expiring: true) {
                !self.faults.contains { $0.effect == .blackhole && $0.applies(to: request.path) }
            }
            return .hangUp
        }
        for case .delay(let milliseconds) in effects {
            let deadline = ContinuousClock.now + .milliseconds(milliseconds)
            guard hold(connection, expiring: false, until: { ContinuousClock.now >= deadline }) else {
                record(request, status: nil)
                return .hangUp
            }
        }
        if let canned = Self.cannedResponse(for: effects, request: request) {
            record(request, status: canned.status)
            return .respond(canned)
        }

        let profile = Self.profile(base, with: effects)
        let now = chain.clock.unixMillis() + profile.clockSkewMillis
        let answer = chain.ledger.withLock {
            NodeAPI(profile: profile, nowUnixMillis: now).answer(request, ledger: &$0)
        }
        chain.announceAdmissions()
        if let event = answer.event { chain.log?("node \(index) \(request.method) \(request.path): \(event)") }
        switch answer.reply {
        case .never:
            record(request, status: nil)
            _ = hold(connection, expiring: true) { false }
            return .hangUp
        case .respond(var response):
            Self.distort(&response, by: effects)
            record(request, status: response.status)
            return .respond(response)
        }
    }

    static func profile(_ base: NodeProfile, with effects: [Fault.Effect]) -> NodeProfile {
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
            case .status(500):
                return .json(["success": false, "error": "API error: Connection terminated unexpectedly"], status: 500)
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

    /// Keeps the connection's thread waiting until `done`, checking every 10 ms. False when the
    /// connection was let go first: its client left, the server is stopping or, if `expiring`,
    /// the connection timeout passed.
    private func hold(_ connection: HeldConnection, expiring: Bool, until done: () -> Bool) -> Bool {
        while !done() {
            if connection.isAbandoned || (expiring && connection.hasExpired) { return false }
            usleep(10_000)
        }
        return true
    }
}
