package import AdamantCore

/// One Socket.IO session with one node over Engine.IO long-polling (docs/node-api.md §1.7), as a
/// pure machine: the executor performs the actions it returns and feeds it what came of them. One
/// poll (GET) is outstanding at a time, as the server requires, and one POST; packets to send
/// meanwhile wait and go together. A session that ends for any reason is started anew after a
/// backoff with jitter; the events it missed are REST's to find.
///
/// Every request carries the epoch of the session it belongs to, and answers from an older
/// epoch are ignored, so a late answer can never act on a newer session.
package struct SocketSession: Sendable {
    package enum Action: Sendable, Equatable {
        /// GET the next batch of packets: the handshake when `session` is nil. Report a poll
        /// that takes longer than `timeout` as failed: the node went silent.
        case poll(epoch: Int, session: String?, timeout: Duration)
        /// POST `body`, one or more packets.
        case send(epoch: Int, session: String, body: [UInt8])
        /// The node took the subscription: from now on its events arrive.
        case live
        /// A `newTrans` event's transaction, as the node wrote it: not verified yet.
        case received(Transaction)
        /// The session ended and events may be lost until the next one; call
        /// `retryTimerFired(generation:)` after `retryAfter`.
        case down(SessionEnd, retryAfter: Duration, generation: Int)
    }

    package struct Configuration: Sendable {
        /// The first retry's delay; each failure in a row doubles it, up to `longestBackoff`.
        package var shortestBackoff: Duration = .seconds(1)
        package var longestBackoff: Duration = .seconds(60)
        /// For the handshake and every POST (and any connect); a poll is given the server's
        /// heartbeat instead, since the server holds it until it has something to send.
        package var requestTimeout: Duration = .seconds(10)
        /// A poll's answer larger than this breaks the session: Engine.IO's own `maxPayload`
        /// is 1,000,000 bytes, and one transaction is at most some 25 KB.
        package var maximumAnswerBytes = 1 << 20
        /// More than this many transactions for the addresses within `floodWindow` pace the
        /// polls, so a burst is not queued faster than a consumer takes it; as much of what no
        /// honest node sends (answers with nothing, other accounts' transactions, repeats)
        /// breaks the session (`SocketTraffic`). A real node answers a poll per ping interval
        /// and per event for the addresses.
        package var maximumArrivalsPerWindow = 500
        package var floodWindow: Duration = .seconds(10)

        package init() {}
    }

    private enum Phase: Equatable {
        case idle
        case handshaking
        /// Asked to join the namespace; waiting for the server's yes.
        case joining(session: String, heartbeat: Duration)
        case live(session: String, heartbeat: Duration)
        case waiting(generation: Int)
        case stopped
    }

    private let subscription: [SocketIOEvent]
    private let configuration: Configuration
    private var random: any RandomNumberGenerator & Sendable
    private var phase = Phase.idle
    private var epoch = 0
    private var failuresInARow = 0
    private var isSending = false
    private var unsent: [EnginePacket] = []
    /// The subscription is queued or in the POST on its way: `live` once that POST is answered.
    private var subscribing = false

    /// A session that subscribes to transactions to or from `addresses` of `types`.
    package init(
        addresses: [Address], types: [Int], configuration: Configuration = .init(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        subscription = [
            SocketIOEvent("address", .array(addresses.map { .string($0.description) })),
            SocketIOEvent("types", .array(types.map { .integer(Int64($0)) })),
        ]
        self.configuration = configuration
        self.random = random
    }

    /// Whether events are arriving.
    package var isLive: Bool {
        if case .live = phase { true } else { false }
    }

    package mutating func start() -> [Action] {
        guard phase == .idle || isWaiting else { return [] }
        epoch += 1
        phase = .handshaking
        isSending = false
        unsent = []
        subscribing = false
        return [.poll(epoch: epoch, session: nil, timeout: configuration.requestTimeout)]
    }

    /// Ends the session for good; answers still on their way are ignored.
    package mutating func stop() {
        phase = .stopped
        epoch += 1
    }

    package mutating func retryTimerFired(generation: Int) -> [Action] {
        guard case .waiting(generation) = phase else { return [] }
        return start()
    }

    package mutating func pollAnswered(epoch: Int, status: Int, body: [UInt8]) -> [Action] {
        guard epoch == self.epoch, isRunning else { return [] }
        guard status == 200 else { return end(Self.refusal(status: status)) }
        // The executor asks the transport to cut an answer off at this size; one that read it
        // whole anyway is held to it here.
        guard body.count <= configuration.maximumAnswerBytes else {
            return end(
                .broken(
                    SocketProtocolError(
                        "the socket sent \(body.count) bytes in one answer, more than \(configuration.maximumAnswerBytes)"
                    )))
        }
        let packets: [EnginePacket]
        do { packets = try EnginePacket.packets(inPollingBody: body) } catch { return end(.broken(error)) }
        var actions: [Action] = []
        for packet in packets {
            do { actions += try take(packet) } catch { return end(.broken(error)) }
            guard isRunning else { return actions }
        }
        guard let session, let heartbeat else {
            return actions + end(.broken(SocketProtocolError("the socket's first answer is not an open packet")))
        }
        return actions + flush() + [.poll(epoch: epoch, session: session, timeout: heartbeat)]
    }

    package mutating func pollFailed(epoch: Int, _ error: TransportError) -> [Action] {
        guard epoch == self.epoch, isRunning else { return [] }
        return end(SessionEnd(error))
    }

    package mutating func sendAnswered(epoch: Int, status: Int, body: [UInt8]) -> [Action] {
        guard epoch == self.epoch, isRunning else { return [] }
        guard status == 200 else { return end(Self.refusal(status: status)) }
        isSending = false
        // What was queued after the subscription goes in the next POST; the one answered held it.
        let subscribed = subscribing && !unsent.contains { Self.isSubscription($0, of: subscription) }
        if subscribed { subscribing = false }
        return (subscribed ? [.live] : []) + flush()
    }

    /// Ends the session for what the executor saw (a flood of events, an answer cut off for
    /// its size; `epoch`, when given, is the request's): as if the node had broken the protocol.
    package mutating func abandon(_ why: SocketProtocolError, epoch: Int? = nil) -> [Action] {
        guard isRunning, epoch ?? self.epoch == self.epoch else { return [] }
        return end(.broken(why))
    }

    package mutating func sendFailed(epoch: Int, _ error: TransportError) -> [Action] {
        guard epoch == self.epoch, isRunning else { return [] }
        return end(SessionEnd(error))
    }

    // MARK: Packets

    private mutating func take(_ packet: EnginePacket) throws(SocketProtocolError) -> [Action] {
        switch (packet, phase) {
        case (.open(let handshake), .handshaking):
            // A poll is answered at least every ping interval; the pong may take the timeout.
            phase = .joining(session: handshake.sessionID, heartbeat: handshake.pingInterval + handshake.pingTimeout)
            unsent.append(.message(SocketIOPacket.connect(socketID: nil).message))
            return []
        case (.open, _): throw SocketProtocolError("the socket sent a second open packet")
        case (_, .handshaking): throw SocketProtocolError("the socket's first answer is not an open packet")
        case (.ping, _):
            unsent.append(.pong)
            return []
        case (.close, _): return end(.closedByServer)
        case (.message(let data), _): return try take(try SocketIOPacket(message: data))
        case (.pong, _), (.upgrade, _), (.noop, _): return []
        }
    }

    private mutating func take(_ packet: SocketIOPacket) throws(SocketProtocolError) -> [Action] {
        switch (packet, phase) {
        case (.connect, .joining(let session, let heartbeat)):
            phase = .live(session: session, heartbeat: heartbeat)
            failuresInARow = 0
            unsent += subscription.map { .message(SocketIOPacket.event($0).message) }
            subscribing = true
            return []
        case (.connectError(let reason), _):
            throw SocketProtocolError("the socket refused to join: \(reason.escapingControlCharacters)")
        case (.disconnect, _): return end(.closedByServer)
        case (.event(let event), .live) where event.name == "newTrans": return [.received(try event.transaction())]
        case (.connect, _), (.event, _), (.elsewhere, _): return []
        }
    }

    private mutating func flush() -> [Action] {
        guard !isSending, !unsent.isEmpty, let session else { return [] }
        isSending = true
        defer { unsent = [] }
        return [.send(epoch: epoch, session: session, body: EnginePacket.pollingBody(unsent))]
    }

    // MARK: Ending

    private mutating func end(_ why: SessionEnd) -> [Action] {
        epoch += 1
        let generation = epoch
        phase = .waiting(generation: generation)
        let delay = backoff()
        failuresInARow += 1
        return [.down(why, retryAfter: delay, generation: generation)]
    }

    /// Between half and all of the doubled delay, so nodes that dropped many watchers at once
    /// are not asked again by all of them at the same moment.
    private mutating func backoff() -> Duration {
        let doublings = min(failuresInARow, 16)
        let full = min(configuration.longestBackoff, configuration.shortestBackoff * (1 << doublings))
        return full * (0.5 + Double.random(in: 0..<0.5, using: &random))
    }

    private static func isSubscription(_ packet: EnginePacket, of subscription: [SocketIOEvent]) -> Bool {
        subscription.contains { packet == .message(SocketIOPacket.event($0).message) }
    }

    private static func refusal(status: Int) -> SessionEnd {
        // Engine.IO answers 400 to a session it no longer knows (expired, or the node restarted).
        status == 400 ? .sessionUnknown : .failed("HTTP \(status)")
    }

    private var session: String? {
        switch phase {
        case .joining(let session, _), .live(let session, _): session
        default: nil
        }
    }

    private var heartbeat: Duration? {
        switch phase {
        case .joining(_, let heartbeat), .live(_, let heartbeat): heartbeat
        default: nil
        }
    }

    private var isRunning: Bool {
        switch phase {
        case .handshaking, .joining, .live: true
        case .idle, .waiting, .stopped: false
        }
    }

    private var isWaiting: Bool {
        if case .waiting = phase { true } else { false }
    }
}

/// Why a socket session ended.
package enum SessionEnd: Sendable, Equatable, CustomStringConvertible {
    /// No answer: the node is unreachable, or went silent past its heartbeat.
    case failed(String)
    /// The proxy the socket goes through failed (it is down, or would not carry the request):
    /// nothing is known of the node.
    case proxyFailed(proxy: String, reason: String)
    /// The node no longer knows the session (it expired, or the node restarted).
    case sessionUnknown
    /// The node closed it.
    case closedByServer
    /// The node sent what the protocol does not allow: its socket is not to be trusted.
    case broken(SocketProtocolError)

    package var description: String {
        switch self {
        case .failed(let reason): reason
        case .proxyFailed(let proxy, let reason): "the proxy \(proxy) failed: \(reason)"
        case .sessionUnknown: "the node no longer knows the session"
        case .closedByServer: "the node closed the session"
        case .broken(let error): error.reason
        }
    }
}

extension SessionEnd {
    /// A request of the session that got no HTTP answer: the proxy's failure, or the node's.
    init(_ error: TransportError) {
        if case .proxyFailed(let proxy, let reason) = error {
            self = .proxyFailed(proxy: proxy, reason: reason)
        } else {
            self = .failed(error.description)
        }
    }

    /// Whether the node itself may be to blame: a session the proxy ended says nothing of it.
    package var isTheNodes: Bool {
        if case .proxyFailed = self { false } else { true }
    }
}
