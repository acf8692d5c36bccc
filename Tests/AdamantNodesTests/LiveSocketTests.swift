import AdamantCore
import AdamantDevnet
import Synchronization
import Testing

@testable import AdamantNodes

/// A node's socket kept open through the real libcurl transport against the devnet.
@Suite(.timeLimit(.minutes(1)))
struct LiveSocketTests {
    /// Reads `events` on a task of its own, so a test can wait for what has arrived.
    final class Listener: Sendable {
        final class Inbox: Sendable { let events = Mutex<[SocketConnection.Event]>([]) }
        let inbox = Inbox()
        let reader: Task<Void, Never>

        init(_ connection: SocketConnection) {
            let inbox = inbox
            reader = Task {
                await connection.run { event in
                    inbox.events.withLock { $0.append(event) }
                    return true
                }
            }
        }

        deinit { reader.cancel() }

        private var arrived: [SocketConnection.Event] { inbox.events.withLock { $0 } }
        var lives: Int { arrived.filter { if case .live = $0 { true } else { false } }.count }
        var downs: Int { arrived.filter { if case .down = $0 { true } else { false } }.count }
        /// The last word was `live`.
        var isLive: Bool {
            if case .live? = arrived.last(where: { if case .received = $0 { false } else { true } }) {
                true
            } else {
                false
            }
        }
        var received: [TransactionID] { arrived.compactMap { if case .received(_, let id) = $0 { id } else { nil } } }
    }

    @Test func eventsArriveAndASessionThatBreaksIsStartedAgain() async throws {
        let network = try LiveNetwork(nodeCount: 1)
        let client = await network.client()
        let node = network.nodes[0]
        let port = try #require(client.pool.reports.first?.status?.socketPort, "wsClient gives the socket's port")
        let connection = SocketConnection(
            origin: node.socketOrigin(port: port), addresses: [Fixtures.recipient.address], types: [0, 8],
            transport: network.transport)
        let listener = Listener(connection)
        #expect(await eventually(within: .seconds(10)) { listener.lives == 1 })

        let first = try await network.sendChat("one", via: client)
        #expect(await eventually(within: .seconds(10)) { listener.received == [first.transactionID] })

        try network.add("refuse", to: node)
        #expect(await eventually(within: .seconds(20)) { listener.downs >= 1 }, "within the heartbeat at the latest")
        let livesBefore = listener.lives
        try network.devnet.clearFaults(ofNode: 0)
        #expect(
            await eventually(within: .seconds(20)) { listener.lives > livesBefore && listener.isLive },
            "a new session, after the backoff")
        let second = try await network.sendChat("two", via: client)
        #expect(await eventually(within: .seconds(10)) { listener.received.contains(second.transactionID) })
        #expect(listener.received.filter { $0 == first.transactionID }.count == 1)
    }
}

/// A socket that answers every poll at once with more transactions: the session is broken
/// before more than the flood window's worth are handed on.
@Suite(.timeLimit(.minutes(1)))
struct SocketFloodTests {
    /// A socket at http://socket.test that opens, joins, then answers every poll at once with
    /// `body`; the polls so far.
    /// A socket whose first session answers every poll with `body`; `polls` counts that
    /// session's GETs (its open included) and none after: a reconnection, which may begin
    /// before a loaded test reads the count, opens without a sid.
    static func socket(answeringEveryPollWith body: String) -> (ScriptedTransport, polls: PollCount) {
        socket { _ in body }
    }

    /// As above, poll number `n` of the first session (from 3, after the open and the join)
    /// answered with `body(n)`.
    static func socket(answering body: @escaping @Sendable (Int) -> String) -> (ScriptedTransport, polls: PollCount) {
        let transport = ScriptedTransport()
        let polls = PollCount()
        transport.route("http://socket.test") { request, _ in
            guard request.method == .get else { return .answer(body: "ok", contentType: "text/html") }
            let opening = !request.url.contains("sid=")
            let number = polls.state.withLock { state in
                if opening { state.sessions += 1 }
                guard state.sessions == 1 else { return opening ? 1 : 3 }  // a later session's: answered, not counted
                state.count += 1
                return state.count
            }
            switch number {
            case 1:
                return .answer(
                    body: #"0{"sid":"S","upgrades":[],"pingInterval":25000,"pingTimeout":20000}"#,
                    contentType: "text/plain")
            case 2: return .answer(body: "40", contentType: "text/plain")
            default: return .answer(body: body(number), contentType: "text/plain")
            }
        }
        return (transport, polls)
    }

    final class PollCount: Sendable {
        let state = Mutex((count: 0, sessions: 0))
        /// The first session's GETs.
        var count: Int { state.withLock { $0.count } }
    }

    /// The same transaction over and over: only its first arrival is handed on, and the
    /// repeats pace the polls without breaking the session.
    @Test func aFloodOfOneEventIsHandedOnOnceAndPaced() async throws {
        let event = "42[\"newTrans\",\(Fixtures.json(Fixtures.chat()))]"
        let (transport, _) = Self.socket(
            answeringEveryPollWith: [String](repeating: event, count: 10).joined(separator: "\u{1E}"))
        var configuration = SocketSession.Configuration()
        configuration.maximumArrivalsPerWindow = 35
        let connection = SocketConnection(
            origin: "http://socket.test", addresses: [Fixtures.recipient.address], types: [0, 8], transport: transport,
            configuration: configuration)
        var received = 0
        var paced: String?
        await connection.run { event in
            switch event {
            case .received: received += 1
            case .live: break
            case .paced(let why): paced = why.description
            case .down(let end): Issue.record("the session ended: \(end)")
            }
            return paced == nil
        }
        #expect(
            paced?.hasPrefix("it brought more than 35 transactions for the watched accounts in 10.0 seconds") == true)
        #expect(received == 1, "\(received) handed on")
    }

    /// A node that has ever more for the account, answering every poll at once: nothing is
    /// its fault, so the session stays up and its polls are paced to the limit.
    @Test func aBurstForTheAccountIsPacedNotBroken() async throws {
        let (transport, _) = Self.socket { poll in
            SocketTrafficTests.chats(10, from: poll * 10).map { "42[\"newTrans\",\(Fixtures.json($0))]" }.joined(
                separator: "\u{1E}")
        }
        var configuration = SocketSession.Configuration()
        configuration.maximumArrivalsPerWindow = 35
        // A window no loaded machine outlasts: the four answers always fall in it.
        configuration.floodWindow = .seconds(600)
        let connection = SocketConnection(
            origin: "http://socket.test", addresses: [Fixtures.recipient.address], types: [0, 8], transport: transport,
            configuration: configuration)
        var received: [TransactionID] = []
        var paced: String?
        await connection.run { event in
            switch event {
            case .live: break
            case .received(_, let id): received.append(id)
            case .paced(let why): paced = why.description
            case .down(let end): Issue.record("the session ended: \(end)")
            }
            return paced == nil
        }
        #expect(
            paced
                == "it brought more than 35 transactions for the watched accounts in 600.0 seconds: its polls are paced, and the node holds the rest"
        )
        #expect(
            received.count == 40 && Set(received).count == 40,
            "the four answers handed on whole, none twice: \(received.count)")
    }

    /// Answers of nothing that matters, at once, poll after poll: the session breaks too,
    /// rather than poll flat out for as long as the node likes.
    @Test func answersAtOnceWithNothingInThemBreakTheSession() async throws {
        let (transport, polls) = Self.socket(answeringEveryPollWith: #"42["unknown",1]\#u{1E}6"#)
        var configuration = SocketSession.Configuration()
        configuration.maximumArrivalsPerWindow = 50
        // A window no loaded machine outlasts: 50 polls always fall in it, so the count is exact.
        configuration.floodWindow = .seconds(600)
        let connection = SocketConnection(
            origin: "http://socket.test", addresses: [Fixtures.recipient.address], types: [0, 8], transport: transport,
            configuration: configuration)
        var ended: SessionEnd?
        await connection.run { event in
            if case .down(let end) = event { ended = end }
            return ended == nil
        }
        #expect(
            ended
                == .broken(
                    SocketProtocolError(
                        "the socket sent 51 answers with nothing for the watched accounts in 600.0 seconds, more than 50"
                    )))
        #expect(polls.count <= 52, "\(polls.count) polls")
    }
}

/// What a connection leaves running.
@Suite(.timeLimit(.minutes(1)))
struct SocketConnectionEndTests {
    /// The subscription's POST refused while the session's long poll waits: the session ends,
    /// and its poll with it, at once, not at its timeout (the clock moves one second only).
    @Test func aSessionThatEndsCancelsItsRequests() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: AnyClock(clock))
        let polls = Mutex(0)
        let posts = Mutex(0)
        transport.route("http://socket.test") { request, _ in
            guard request.method == .get else {
                let first = posts.withLock { count in
                    count += 1
                    return count == 1
                }
                return first
                    ? .answer(body: "ok", contentType: "text/html")
                    : .answer(status: 500, body: "no", contentType: "text/html", after: .seconds(1))
            }
            switch polls.withLock({ count in
                count += 1
                return count
            }) {
            case 1:
                return .answer(
                    body: #"0{"sid":"S","upgrades":[],"pingInterval":25000,"pingTimeout":20000}"#,
                    contentType: "text/plain")
            case 2: return .answer(body: "40", contentType: "text/plain")
            default: return .blackhole
            }
        }
        let connection = SocketConnection(
            origin: "http://socket.test", addresses: [Fixtures.recipient.address], types: [0, 8], transport: transport,
            clock: AnyClock(clock))
        let ended = Mutex<SessionEnd?>(nil)
        let running = Task {
            await connection.run { event in
                if case .down(let end) = event { ended.withLock { $0 = end } }
                return true
            }
        }
        defer { running.cancel() }
        #expect(
            await eventually(within: .seconds(20)) { transport.inFlight == 2 }, "the long poll and the subscription")
        clock.advance(by: .seconds(1))
        #expect(await eventually(within: .seconds(20)) { ended.withLock { $0 } != nil })
        #expect(ended.withLock { $0 } == .failed("HTTP 500"))
        #expect(
            await eventually(within: .seconds(20)) { transport.inFlight == 0 },
            "\(transport.inFlight) requests of the ended session still out")
        running.cancel()
        await running.value
        #expect(transport.inFlight == 0 && clock.sleeperCount == 0, "nothing outlives the connection's run")
    }
}
