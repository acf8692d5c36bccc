import AdamantCore
import Testing

@testable import AdamantNodes

/// The Engine.IO framing and the Socket.IO packets, as a node's socket writes them.
struct SocketFramingTests {
    @Test func aPollingBodyIsPacketsBetweenRecordSeparators() throws {
        let body =
            Array(
                #"0{"sid":"a-B_9","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#
                    .utf8)
            + [0x1E] + Array("2".utf8) + [0x1E] + Array("bAQID".utf8) + [0x1E] + Array("40{\"sid\":\"x\"}".utf8) + [
                0x1E
            ] + Array("6".utf8)
        let packets = try EnginePacket.packets(inPollingBody: body)
        #expect(
            packets == [
                .open(EngineHandshake(sessionID: "a-B_9", pingInterval: .seconds(25), pingTimeout: .seconds(20))),
                .ping, .message(Array("0{\"sid\":\"x\"}".utf8)), .noop,
            ])
    }

    @Test(arguments: [
        ("", "packet 1 of the poll's answer is empty"),
        ("2\u{1E}", "packet 2 of the poll's answer is empty"),
        ("7", "packet 1 of the poll's answer has no Engine.IO type (it starts with byte 55)"),
        // protocol 3's framing
        ("12:42[\"x\"]", "packet 1 of the poll's answer, of type 1, carries data it cannot have"),
        ("2x", "packet 1 of the poll's answer, of type 2, carries data it cannot have"),
        (#"0{"sid":"a b","pingInterval":1,"pingTimeout":1}"#, "the socket's open packet has no usable sid"),
        (
            #"0{"sid":"ab","pingInterval":0,"pingTimeout":1}"#,
            "the socket's open packet has no pingInterval and pingTimeout between 1 and 300000 ms"
        ),
        (
            #"0{"sid":"ab","pingInterval":25000}"#,
            "the socket's open packet has no pingInterval and pingTimeout between 1 and 300000 ms"
        ),
    ])
    func brokenFramingIsRefusedWithItsReason(_ body: String, _ reason: String) {
        #expect(throws: SocketProtocolError(reason)) { try EnginePacket.packets(inPollingBody: Array(body.utf8)) }
    }

    @Test func whatIsWrittenIsReadBack() throws {
        let handshake = EngineHandshake(sessionID: "s1", pingInterval: .milliseconds(1500), pingTimeout: .seconds(2))
        let packets: [EnginePacket] = [.open(handshake), .close, .ping, .pong, .message(Array("2[\"a\"]".utf8)), .noop]
        #expect(try EnginePacket.packets(inPollingBody: EnginePacket.pollingBody(packets)) == packets)
    }

    @Test func anEventIsItsNameAndArgumentsInTheDefaultNamespaceOnly() throws {
        let event = try #require(try eventOf("2[\"newTrans\",{\"a\":1}]"))
        #expect(event.name == "newTrans")
        #expect(
            try eventOf("2/,12[\"x\"]")?.name == "x", "the default namespace spelled out, and an acknowledgement id")
        #expect(try SocketIOPacket(message: Array("2/admin,[\"x\"]".utf8)) == .elsewhere)
        #expect(try SocketIOPacket(message: Array("0{\"sid\":\"q\"}".utf8)) == .connect(socketID: "q"))
        #expect(try SocketIOPacket(message: Array("4{\"message\":\"no\"}".utf8)) == .connectError("no"))
        #expect(throws: SocketProtocolError.self) { try SocketIOPacket(message: Array("2{\"x\":1}".utf8)) }
        #expect(throws: SocketProtocolError.self) { try SocketIOPacket(message: Array("2[1,2]".utf8)) }
        let deep = "2[\"x\"," + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]"
        #expect(throws: SocketProtocolError.self) { try SocketIOPacket(message: Array(deep.utf8)) }
    }

    @Test func aNewTransEventCarriesTheTransactionAsTheNodeWroteIt() throws {
        let sent = Fixtures.chat()
        let event = try #require(try eventOf("2[\"newTrans\",\(Fixtures.json(sent))]"))
        let received = try event.transaction()
        #expect(received.id == sent.id)
        #expect(received.signature == sent.signature)
        #expect(throws: SocketProtocolError.self) { try #require(try eventOf("2[\"newTrans\"]")).transaction() }
        #expect(throws: SocketProtocolError.self) {
            try #require(try eventOf("2[\"newTrans\",{\"type\":8}]")).transaction()
        }
    }

    private func eventOf(_ message: String) throws -> SocketIOEvent? {
        guard case .event(let event) = try SocketIOPacket(message: Array(message.utf8)) else { return nil }
        return event
    }
}

/// The session machine, driven packet by packet as a node would answer.
struct SocketSessionTests {
    static let open = #"0{"sid":"S1","upgrades":[],"pingInterval":25000,"pingTimeout":20000}"#
    static let heartbeat = Duration.seconds(45)

    func session(seed: UInt64 = 1) -> SocketSession {
        SocketSession(addresses: [Fixtures.recipient.address], types: [0, 8], random: SeededGenerator(seed: seed))
    }

    /// Drives `session` to live, checking each request on the way.
    func live(_ session: inout SocketSession) throws {
        #expect(session.start() == [.poll(epoch: 1, session: nil, timeout: .seconds(10))])
        #expect(
            session.pollAnswered(epoch: 1, status: 200, body: Array(Self.open.utf8)) == [
                .send(epoch: 1, session: "S1", body: Array("40".utf8)),
                .poll(epoch: 1, session: "S1", timeout: Self.heartbeat),
            ])
        #expect(session.sendAnswered(epoch: 1, status: 200, body: Array("ok".utf8)) == [])
        let subscription = "42[\"address\",[\"\(Fixtures.recipient.address)\"]]\u{1E}42[\"types\",[0,8]]"
        #expect(
            session.pollAnswered(epoch: 1, status: 200, body: Array("40{\"sid\":\"x\"}".utf8)) == [
                .send(epoch: 1, session: "S1", body: Array(subscription.utf8)),
                .poll(epoch: 1, session: "S1", timeout: Self.heartbeat),
            ])
        #expect(
            session.sendAnswered(epoch: 1, status: 200, body: Array("ok".utf8)) == [.live],
            "live once the node took the subscription")
        #expect(session.isLive)
    }

    @Test func aSessionJoinsSubscribesAndDeliversEvents() throws {
        var session = session()
        try live(&session)
        let chat = Fixtures.chat()
        let actions = session.pollAnswered(
            epoch: 1, status: 200, body: Array("42[\"newTrans\",\(Fixtures.json(chat))]\u{1E}42[\"balances\",{}]".utf8))
        guard case .received(let received) = actions.first else {
            Issue.record("\(actions)")
            return
        }
        #expect(received.id == chat.id)
        #expect(
            actions.dropFirst() == [.poll(epoch: 1, session: "S1", timeout: Self.heartbeat)],
            "the unknown event is dropped")
    }

    @Test func aPingIsAnsweredOnceThePOSTInFlightIsDone() {
        var session = session()
        _ = session.start()
        _ = session.pollAnswered(epoch: 1, status: 200, body: Array(Self.open.utf8))  // POSTs 40
        #expect(
            session.pollAnswered(epoch: 1, status: 200, body: Array("2".utf8)) == [
                .poll(epoch: 1, session: "S1", timeout: Self.heartbeat)
            ],
            "one POST at a time")
        #expect(
            session.sendAnswered(epoch: 1, status: 200, body: []) == [
                .send(epoch: 1, session: "S1", body: Array("3".utf8))
            ])
    }

    @Test func eventsBeforeTheJoinAreNotDelivered() {
        var session = session()
        _ = session.start()
        _ = session.pollAnswered(epoch: 1, status: 200, body: Array(Self.open.utf8))
        let actions = session.pollAnswered(
            epoch: 1, status: 200, body: Array("42[\"newTrans\",\(Fixtures.json(Fixtures.chat()))]".utf8))
        #expect(actions == [.poll(epoch: 1, session: "S1", timeout: Self.heartbeat)])
    }

    @Test(arguments: [
        ("1", SessionEnd.closedByServer),
        ("41", .closedByServer),
        ("44{\"message\":\"nope\"}", .broken(SocketProtocolError("the socket refused to join: nope"))),
        (open, .broken(SocketProtocolError("the socket sent a second open packet"))),
        (
            "42[\"newTrans\",{}]",
            .broken(SocketProtocolError("the newTrans event holds no transaction: [1].type is missing"))
        ),
        (
            "x",
            .broken(
                SocketProtocolError("packet 1 of the poll's answer has no Engine.IO type (it starts with byte 120)"))
        ),
    ])
    func aSessionEndsOnWhatTheNodeSends(_ body: String, _ end: SessionEnd) throws {
        var session = session()
        try live(&session)
        let actions = session.pollAnswered(epoch: 1, status: 200, body: Array(body.utf8))
        guard case .down(let why, _, _) = actions.last else {
            Issue.record("\(actions)")
            return
        }
        #expect(why == end)
        #expect(!session.isLive)
    }

    @Test func anExpiredSessionIsStartedAgainAndLateAnswersAreIgnored() throws {
        var session = session()
        try live(&session)
        let down = session.pollAnswered(
            epoch: 1, status: 400, body: Array(#"{"code":1,"message":"Session ID unknown"}"#.utf8))
        guard case .down(.sessionUnknown, _, let generation) = down.first else {
            Issue.record("\(down)")
            return
        }
        #expect(session.sendAnswered(epoch: 1, status: 200, body: []) == [], "the old session's POST answer")
        #expect(session.pollAnswered(epoch: 1, status: 200, body: Array("2".utf8)) == [])
        #expect(session.retryTimerFired(generation: generation + 1) == [], "a stale timer")
        #expect(
            session.retryTimerFired(generation: generation) == [
                .poll(epoch: generation + 1, session: nil, timeout: .seconds(10))
            ])
    }

    @Test func theBackoffDoublesWithJitterAndResetsOnceLive() throws {
        var session = session(seed: 7)
        var delays: [Duration] = []
        var next = session.start()
        for _ in 0..<8 {
            guard case .poll(let epoch, nil, _) = next.first else {
                Issue.record("\(next)")
                return
            }
            let actions = session.pollFailed(epoch: epoch, .unreachable("refused"))
            guard case .down(.failed("unreachable: refused"), let delay, let generation) = actions.first else {
                Issue.record("\(actions)")
                return
            }
            delays.append(delay)
            next = session.retryTimerFired(generation: generation)
        }
        let ceilings: [Duration] = [1, 2, 4, 8, 16, 32, 60, 60].map { .seconds($0) }
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay >= ceiling / 2 && delay < ceiling, "\(delays)")
        }
        #expect(Set(zip(delays, ceilings).map { $0 / $1 }).count == delays.count, "jittered: \(delays)")

        var fresh = self.session(seed: 7)
        try live(&fresh)
        let afterLive = fresh.pollFailed(epoch: 1, .timedOut)
        guard case .down(_, let delay, _) = afterLive.first else {
            Issue.record("\(afterLive)")
            return
        }
        #expect(delay < .seconds(1), "a session that went live starts the doubling again")
    }

    /// What ends a session without an HTTP answer: the proxy's failure is its own, every
    /// other the node's; either way the session is tried again after the backoff.
    @Test(arguments: [
        (
            TransportError.proxyFailed(proxy: "socks5h://127.0.0.1:9050", reason: "Couldn't connect to server"),
            SessionEnd.proxyFailed(proxy: "socks5h://127.0.0.1:9050", reason: "Couldn't connect to server"), false
        ),
        (
            .unreachable("socks5h://127.0.0.1:9050 could not reach the node: refused"),
            .failed("unreachable: socks5h://127.0.0.1:9050 could not reach the node: refused"), true
        ),
        (.timedOut, .failed("timed out"), true),
    ])
    func aRequestWithoutAnAnswerEndsTheSessionAsTheProxysOrTheNodes(
        _ error: TransportError, _ end: SessionEnd, _ nodes: Bool
    ) throws {
        var polling = session()
        try live(&polling)
        guard case .down(let why, _, let generation) = polling.pollFailed(epoch: 1, error).first else {
            Issue.record("not down")
            return
        }
        #expect(why == end && why.isTheNodes == nodes)
        #expect(
            why.description
                == (nodes ? "\(error)" : "the proxy socks5h://127.0.0.1:9050 failed: Couldn't connect to server"))
        #expect(
            polling.retryTimerFired(generation: generation) == [
                .poll(epoch: generation + 1, session: nil, timeout: .seconds(10))
            ])

        var sending = session()
        _ = sending.start()
        _ = sending.pollAnswered(epoch: 1, status: 200, body: Array(Self.open.utf8))  // POSTs 40
        guard case .down(let sent, _, _) = sending.sendFailed(epoch: 1, error).first else {
            Issue.record("not down")
            return
        }
        #expect(sent == end)
    }

    @Test func anAnswerTooLargeBreaksTheSession() throws {
        var configuration = SocketSession.Configuration()
        configuration.maximumAnswerBytes = 4_000
        var again = SocketSession(
            addresses: [Fixtures.recipient.address], types: [0, 8], configuration: configuration,
            random: SeededGenerator(seed: 1))
        try live(&again)
        let large = Array(("4" + String(repeating: " ", count: 4_000)).utf8)
        guard case .down(.broken(let size), _, _) = again.pollAnswered(epoch: 1, status: 200, body: large).last else {
            Issue.record("not broken")
            return
        }
        #expect(size.reason == "the socket sent 4001 bytes in one answer, more than 4000")
    }
}
