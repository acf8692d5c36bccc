import AdamantCore
import Foundation
import Synchronization

/// A node's client socket (docs/node-api.md §1.7): Socket.IO over Engine.IO 4 long-polling on a
/// port of its own. Each client's poll is held until there is something to send, or a ping is due;
/// a transaction the pool admits goes as `newTrans` to every joined client whose subscription
/// implies it, at most once per id per minute. A client that stops polling, or does not answer a
/// ping in time, is forgotten, and its sid is then unknown.
final class SocketHub: Sendable {
    struct Heartbeat: Sendable {
        var pingInterval: Duration = .seconds(25)
        var pingTimeout: Duration = .seconds(20)
    }

    /// What the hub needs of its node: a transaction written as the node's answers are
    /// (`forged`: with a byte changed), and the node's faults now.
    struct Node: Sendable {
        var render: @Sendable (Transaction, Ledger, _ forged: Bool) -> JSONValue = { _, _, _ in nil }
        var effects: @Sendable () -> [Fault.Effect] = { [] }
    }

    private struct Client {
        var subscription = SocketSubscription()
        var outgoing: [EnginePacket] = []
        var isPolling = false
        var hasJoined = false
        let opened: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
        var nextPing: ContinuousClock.Instant
        var pingSent: ContinuousClock.Instant?
        /// Announcements a `socket-slow` fault holds, each until its time.
        var held: [(due: ContinuousClock.Instant, packet: EnginePacket)] = []

        init(now: ContinuousClock.Instant, pingInterval: Duration) {
            opened = now
            lastSeen = now
            nextPing = now + pingInterval
        }

        mutating func release(at now: ContinuousClock.Instant) {
            outgoing += held.filter { $0.due <= now }.map(\.packet)
            held.removeAll { $0.due <= now }
        }
    }

    private struct State {
        var clients: [String: Client] = [:]
        var announced = RecentIDs(memory: SocketHub.announcementMemory)
    }

    /// The node emits an id again only after this long (`lastTransactionsIds`).
    static let announcementMemory: Duration = .seconds(60)

    private let server: HTTPServer
    private let heartbeat: Heartbeat
    private let nodeView = Mutex(Node())
    private let state = Mutex(State())
    private let handled = Atomic<Int>(0)

    /// Requests answered since start (polls, posts and refusals alike).
    var requestsHandled: Int { handled.load(ordering: .relaxed) }

    /// The addresses each session that joined the namespace subscribed to, one set a session.
    var subscriptions: [Set<Address>] {
        state.withLock { $0.clients.values.filter(\.hasJoined).map(\.subscription.addresses) }
    }

    /// Set by the node before it starts.
    var node: Node {
        get { nodeView.withLock { $0 } }
        set { nodeView.withLock { $0 = newValue } }
    }

    init(heartbeat: Heartbeat, limits: HTTPServer.Limits) throws(HTTPServer.StartError) {
        self.heartbeat = heartbeat
        let box = HandlerBox()
        server = try HTTPServer(limits: limits) { request, connection in box.hub?.handle(request, connection) ?? .hangUp
        }
        box.hub = self
    }

    var port: UInt16 { server.port.number }
    func start() throws(HTTPServer.StartError) { try server.start() }

    /// Stops serving; every session is forgotten, as a restarted node forgets them.
    func stop() {
        server.stop()
        state.withLock { $0.clients = [:] }
    }

    /// Called with the ledger locked, right after the pool admitted `transactions`.
    func admitted(_ transactions: [Transaction], ledger: Ledger) {
        let now = ContinuousClock.now
        let node = self.node
        let effects = node.effects()
        if effects.contains(.socketSilent) { return }
        let forged = effects.contains(.socketForge)
        let copies = effects.contains(.socketDuplicate) ? 2 : 1
        let delay = effects.lazy.compactMap {
            if case .socketSlow(let milliseconds) = $0 { Duration.milliseconds(milliseconds) } else { nil }
        }.first
        state.withLock { state in
            sweep(&state, now: now, effects: effects)
            state.announced.forget(at: now)
            for transaction in transactions {
                guard let id = transaction.id, state.announced.insert(id, at: now) else { continue }
                let listeners = state.clients.filter {
                    $0.value.hasJoined && $0.value.subscription.implies(transaction)
                }.map(\.key)
                guard !listeners.isEmpty else { continue }
                let event = EnginePacket.message(
                    SocketIOPacket.event(SocketIOEvent("newTrans", node.render(transaction, ledger, forged))).message)
                for sid in listeners {
                    for _ in 0..<copies {
                        if let delay {
                            state.clients[sid]?.held.append((now + delay, event))
                        } else {
                            state.clients[sid]?.outgoing.append(event)
                        }
                    }
                }
            }
        }
    }

    // MARK: Requests

    private func handle(_ request: HTTPRequest, _ connection: HeldConnection) -> HTTPReply {
        handled.add(1, ordering: .relaxed)
        guard request.path == "/socket.io/" else { return .respond(.text("Not Found", status: 404)) }
        guard request.parameter("transport") == "polling" else { return refusal(0, "Transport unknown") }
        guard request.parameter("EIO") == "4" else { return refusal(5, "Unsupported protocol version") }
        if request.method == "GET", node.effects().contains(.socketHold) { return hold(connection) }
        guard let sid = request.parameter("sid") else {
            return request.method == "GET" ? open() : refusal(1, "Session ID unknown")
        }
        switch request.method {
        case "GET": return poll(sid, connection)
        case "POST": return receive(request.body, from: sid)
        default: return refusal(2, "Bad handshake method")
        }
    }

    private func open() -> HTTPReply {
        let now = ContinuousClock.now
        let sid = Self.newSessionID()
        state.withLock { $0.clients[sid] = Client(now: now, pingInterval: heartbeat.pingInterval) }
        let handshake = EngineHandshake(
            sessionID: sid, pingInterval: heartbeat.pingInterval, pingTimeout: heartbeat.pingTimeout)
        return packets([.open(handshake)])
    }

    /// A poll answered with nothing, ever: let go only when its client leaves.
    private func hold(_ connection: HeldConnection) -> HTTPReply {
        while !connection.isAbandoned { usleep(5_000) }
        return .hangUp
    }

    /// Holds the poll until something is to be sent, checking every 5 ms.
    private func poll(_ sid: String, _ connection: HeldConnection) -> HTTPReply {
        enum Start { case unknown, overlapping, polling }
        let effects = node.effects
        let hostile = effects()
        if hostile.contains(.socketHuge) || hostile.contains(.socketFlood), state.withLock({ $0.clients[sid] != nil }) {
            guard hostile.contains(.socketHuge) else {
                let event = EnginePacket.message(SocketIOPacket.event(SocketIOEvent("flood", .integer(1))).message)
                return packets([EnginePacket](repeating: event, count: 200))
            }
            return .respond(
                HTTPResponse(
                    status: 200, contentType: "text/plain; charset=UTF-8",
                    body: [0x34] + [UInt8](repeating: 0x78, count: 10_000_000)))
        }
        let start = state.withLock { state -> Start in
            sweep(&state, now: .now, effects: effects())
            guard let client = state.clients[sid] else { return .unknown }
            // Engine.IO closes a session that polls twice at once.
            guard !client.isPolling else {
                state.clients[sid] = nil
                return .overlapping
            }
            state.clients[sid]?.isPolling = true
            return .polling
        }
        switch start {
        case .unknown: return refusal(1, "Session ID unknown")
        case .overlapping: return refusal(3, "Bad request")
        case .polling: break
        }
        while true {
            let now = ContinuousClock.now
            let current = effects()
            let batch = state.withLock { state -> [EnginePacket]? in
                sweep(&state, now: now, effects: current)
                guard var client = state.clients[sid] else { return [.close] }
                client.release(at: now)
                if client.outgoing.isEmpty, now >= client.nextPing {
                    client.outgoing.append(.ping)
                    client.pingSent = client.pingSent ?? now
                    client.nextPing = now + heartbeat.pingInterval
                }
                guard !client.outgoing.isEmpty else { return nil }
                defer {
                    client.outgoing = []
                    client.isPolling = false
                    client.lastSeen = now
                    state.clients[sid] = client
                }
                return client.outgoing
            }
            if let batch { return packets(batch) }
            if connection.isAbandoned {
                state.withLock { $0.clients[sid]?.isPolling = false }
                return .hangUp
            }
            usleep(5_000)
        }
    }

    private func receive(_ body: [UInt8], from sid: String) -> HTTPReply {
        let now = ContinuousClock.now
        guard let packets = try? EnginePacket.packets(inPollingBody: body) else {
            state.withLock { _ = $0.clients.removeValue(forKey: sid) }
            return refusal(3, "Bad request")
        }
        let effects = node.effects()
        let known = state.withLock { state -> Bool in
            sweep(&state, now: now, effects: effects)
            guard var client = state.clients[sid] else { return false }
            client.lastSeen = now
            for packet in packets {
                switch packet {
                case .pong: client.pingSent = nil
                case .close:
                    state.clients[sid] = nil
                    return true
                case .message(let data):
                    switch try? SocketIOPacket(message: data) {
                    case .connect?:
                        client.hasJoined = true
                        client.outgoing.append(.message(SocketIOPacket.connect(socketID: Self.newSessionID()).message))
                    case .event(let event)?: client.subscription.take(event)
                    default: break
                    }
                default: break
                }
            }
            state.clients[sid] = client
            return true
        }
        return known ? .respond(.text("ok", status: 200, contentType: "text/html")) : refusal(1, "Session ID unknown")
    }

    /// Forgets the clients whose pong is late, those that stopped polling, and, under a
    /// `socket-drop` fault, those whose session has lasted its time.
    private func sweep(_ state: inout State, now: ContinuousClock.Instant, effects: [Fault.Effect]) {
        let heartbeat = self.heartbeat
        let lifetime = effects.lazy.compactMap {
            if case .socketDrop(let seconds) = $0 { Duration.seconds(seconds) } else { nil }
        }.first
        state.clients = state.clients.filter { _, client in
            if let lifetime, now - client.opened >= lifetime { return false }
            if let sent = client.pingSent, now - sent > heartbeat.pingTimeout { return false }
            return client.isPolling || now - client.lastSeen <= heartbeat.pingInterval + heartbeat.pingTimeout
        }
    }

    private func packets(_ packets: [EnginePacket]) -> HTTPReply {
        .respond(
            HTTPResponse(status: 200, contentType: "text/plain; charset=UTF-8", body: EnginePacket.pollingBody(packets))
        )
    }

    /// Engine.IO's refusals, as its server words them.
    private func refusal(_ code: Int, _ message: String) -> HTTPReply {
        .respond(.json(["code": .integer(Int64(code)), "message": .string(message)], status: 400))
    }

    /// 20 characters of base64url, as Engine.IO's own ids.
    private static func newSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}

/// Lets the server's handler reach the hub that owns the server.
private final class HandlerBox: @unchecked Sendable {
    // Set once in the hub's init, before the server starts; read only after.
    weak var hub: SocketHub?
}
