import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// Each node's client socket, spoken to as Engine.IO 4 polling on the wire.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct SocketTests {
    /// A client of one node's socket, one request per connection.
    struct Client {
        let base: String
        var sid = ""

        init(network: TestNetwork, node: Int = 0) throws {
            let status = try network.get("/api/node/status", node: node).json
            #expect(status["wsClient"]?["enabled"] == true)
            let port = try #require(
                status["wsClient"]?["port"].flatMap { if case .number(let n) = $0 { Int(n) } else { nil } })
            base = "http://127.0.0.1:\(port)/socket.io/?EIO=4&transport=polling"
        }

        func get(timeout: Double = 5) throws -> HTTPResult {
            try HTTPClient.send("GET", base + (sid.isEmpty ? "" : "&sid=\(sid)"), timeout: timeout)
        }

        func post(_ packets: [EnginePacket]) throws -> HTTPResult {
            try HTTPClient.send("POST", base + "&sid=\(sid)", body: EnginePacket.pollingBody(packets))
        }

        /// The handshake: a session, not yet joined.
        mutating func open() throws {
            let opened = try EnginePacket.packets(inPollingBody: get().body)
            guard case .open(let handshake) = opened.first else {
                Issue.record("\(opened)")
                return
            }
            sid = handshake.sessionID
        }

        /// Opens, joins and subscribes to `address`'s transfers and chats.
        mutating func subscribe(_ address: Address) throws {
            try open()
            #expect(try post([.message(SocketIOPacket.connect(socketID: nil).message)]).status == 200)
            let joined = try EnginePacket.packets(inPollingBody: get().body)
            guard case .message(let data) = joined.first, case .connect = try SocketIOPacket(message: data) else {
                Issue.record("\(joined)")
                return
            }
            let events = [
                SocketIOEvent("address", .array([.string(address.description)])), SocketIOEvent("types", [0, 8]),
            ]
            #expect(try post(events.map { .message(SocketIOPacket.event($0).message) }).status == 200)
        }

        /// The transactions of `newTrans` events in the next poll's answer.
        func nextTransactions(timeout: Double = 5) throws -> [Transaction] {
            try EnginePacket.packets(inPollingBody: get(timeout: timeout).body).compactMap { packet in
                guard case .message(let data) = packet, case .event(let event) = try SocketIOPacket(message: data),
                    event.name == "newTrans"
                else { return nil }
                return try event.transaction()
            }
        }
    }

    static func network() throws -> TestNetwork {
        try TestNetwork { configuration in
            configuration.socketPingInterval = .milliseconds(500)
            configuration.socketPingTimeout = .milliseconds(500)
        }
    }

    @Test func aTransactionAdmittedOnOneNodeIsAnnouncedByEveryNodeOnce() throws {
        let network = try Self.network()
        var first = try Client(network: network, node: 0)
        var second = try Client(network: network, node: 1)
        try first.subscribe(Fixtures.bob.address)
        try second.subscribe(Fixtures.bob.address)
        let chat = try message("hello")
        #expect(try network.submit(chat, node: 0).status == 200)
        for client in [first, second] {
            let received = try client.nextTransactions()
            #expect(received.map(\.id) == [chat.id])
            #expect(received.first?.height == nil && received.first?.confirmations == nil, "not in a block yet")
            let announced = try #require(received.first)
            #expect(throws: Never.self) { try announced.verify() }
        }
        let pings = try EnginePacket.packets(inPollingBody: first.get().body)
        #expect(pings == [.ping], "the same id is not announced twice: \(pings)")
    }

    @Test func onlyWhatTheSubscriptionImpliesIsSent() throws {
        let network = try Self.network()
        var client = try Client(network: network)
        try client.subscribe(DevnetAccount.random().address)
        #expect(try network.submit(try message("not yours")).status == 200)
        #expect(try EnginePacket.packets(inPollingBody: client.get().body) == [.ping])
    }

    @Test func aClientThatStopsPollingIsForgotten() throws {
        let network = try Self.network()
        var client = try Client(network: network)
        try client.subscribe(Fixtures.bob.address)
        #expect(try client.get().status == 200)  // a ping; its pong never comes
        #expect(eventually(within: 5) { (try? client.get().status) == 400 })
        let refusal = try client.get()
        #expect(refusal.json["message"] == "Session ID unknown")
        #expect(
            try HTTPClient.send("GET", client.base.replacingOccurrences(of: "EIO=4", with: "EIO=3")).json["message"]
                == "Unsupported protocol version")
    }
}

/// The socket's faults, each seen on the wire.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct SocketFaultTests {
    static func network(_ fault: String) throws -> TestNetwork {
        try TestNetwork(nodes: 1) { configuration in
            configuration.socketPingInterval = .milliseconds(500)
            configuration.socketPingTimeout = .milliseconds(500)
            configuration.faults = [.init(node: 0, fault: try! Fault(parsing: fault))]
        }
    }

    @Test func aSilentSocketPingsAndAnnouncesNothing() throws {
        let network = try Self.network("socket-silent")
        var client = try SocketTests.Client(network: network)
        try client.subscribe(Fixtures.bob.address)
        #expect(try network.submit(try message("withheld")).status == 200)
        #expect(try EnginePacket.packets(inPollingBody: client.get().body) == [.ping])
    }

    @Test func aDuplicatingSocketAnnouncesTwice() throws {
        let network = try Self.network("socket-duplicate")
        var client = try SocketTests.Client(network: network)
        try client.subscribe(Fixtures.bob.address)
        let chat = try message("twice")
        #expect(try network.submit(chat).status == 200)
        #expect(try client.nextTransactions().map(\.id) == [chat.id, chat.id])
    }

    @Test func aForgingSocketSendsWhatDoesNotVerifyWhileTheAPIIsHonest() throws {
        let network = try Self.network("socket-forge")
        var client = try SocketTests.Client(network: network)
        try client.subscribe(Fixtures.bob.address)
        let chat = try message("forged on the socket")
        #expect(try network.submit(chat).status == 200)
        let announced = try #require(try client.nextTransactions().first)
        #expect(throws: TransactionError.self) { try announced.verify() }
        network.devnet.mine()
        let listed = try network.get("/api/transactions/get?id=\(chat.id!)&returnAsset=1").json["transaction"]
        #expect(try Transaction(json: try #require(listed).bytes).verify() == chat.id)
    }

    @Test func aSlowSocketHoldsItsAnnouncements() throws {
        let network = try Self.network("socket-slow:300")
        var client = try SocketTests.Client(network: network)
        try client.subscribe(Fixtures.bob.address)
        let chat = try message("late")
        let sent = ContinuousClock.now
        #expect(try network.submit(chat).status == 200)
        var received: [Transaction] = []
        while received.isEmpty, ContinuousClock.now - sent < .seconds(5) { received = try client.nextTransactions() }
        #expect(received.map(\.id) == [chat.id])
        #expect(ContinuousClock.now - sent >= .milliseconds(300))
    }

    @Test func aDroppingSocketForgetsSessions() throws {
        let network = try Self.network("socket-drop:1")
        var client = try SocketTests.Client(network: network)
        try client.subscribe(Fixtures.bob.address)
        #expect(eventually(within: 5) { (try? client.get().status) == 400 })
    }

    @Test func aHoldingSocketAnswersNoPollNotEvenTheHandshake() throws {
        let network = try Self.network("socket-hold")
        let client = try SocketTests.Client(network: network)
        #expect(throws: HTTPClientError.timedOut(receivedBytes: 0)) { try client.get(timeout: 1.5) }
        #expect(try network.get("/api/node/status").status == 200)
    }

    @Test func aHugeSocketAnswersEachPollWith10MB() throws {
        let network = try Self.network("socket-huge")
        var client = try SocketTests.Client(network: network)
        try client.open()
        let answer = try client.get()
        #expect(answer.status == 200 && answer.body.count == 10_000_001 && answer.body.first == UInt8(ascii: "4"))
    }

    @Test func aFloodingSocketAnswersEachPollAtOnce() throws {
        let network = try Self.network("socket-flood")
        var client = try SocketTests.Client(network: network)
        try client.open()
        for _ in 0..<3 {
            let packets = try EnginePacket.packets(inPollingBody: client.get(timeout: 0.4).body)
            #expect(
                packets.count == 200
                    && packets.allSatisfy { packet in
                        guard case .message(let data) = packet,
                            case .event(let event)? = try? SocketIOPacket(message: data)
                        else { return false }
                        return event.name == "flood"
                    })
        }
    }

    @Test func aRefusedSocketLeavesTheAPIAnswering() throws {
        let network = try Self.network("socket-refuse")
        let client = try SocketTests.Client(network: network)
        #expect(throws: HTTPClientError.self) { try client.get() }
        #expect(try network.get("/api/node/status").status == 200)
    }
}
