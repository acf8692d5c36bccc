import AdamantCore
import AdamantDevnet
@testable import AdamantNodes
import Synchronization
import Testing

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
            reader = Task { for await event in connection.events() { inbox.events.withLock { $0.append(event) } } }
        }

        deinit { reader.cancel() }

        private var arrived: [SocketConnection.Event] { inbox.events.withLock { $0 } }
        var lives: Int { arrived.filter { if case .live = $0 { true } else { false } }.count }
        var downs: Int { arrived.filter { if case .down = $0 { true } else { false } }.count }
        var received: [TransactionID] { arrived.compactMap { if case .received(let transaction) = $0 { transaction.id } else { nil } } }
    }

    @Test func eventsArriveAndASessionThatBreaksIsStartedAgain() async throws {
        let network = try LiveNetwork(nodeCount: 1)
        let client = await network.client()
        let node = network.nodes[0]
        let port = try #require(client.pool.reports.first?.status?.socketPort, "wsClient gives the socket's port")
        let connection = SocketConnection(
            origin: node.socketOrigin(port: port), addresses: [Fixtures.recipient.address], types: [0, 8], transport: network.transport)
        let listener = Listener(connection)
        #expect(await eventually(within: .seconds(10)) { listener.lives == 1 })

        let first = try await network.sendChat("one", via: client)
        #expect(await eventually(within: .seconds(10)) { listener.received == [first.transactionID] })

        try network.add("refuse", to: node)
        #expect(await eventually(within: .seconds(10)) { listener.downs >= 1 })
        try network.devnet.clearFaults(ofNode: 0)
        #expect(await eventually(within: .seconds(10)) { listener.lives == 2 }, "a new session, after the backoff")
        let second = try await network.sendChat("two", via: client)
        #expect(await eventually(within: .seconds(10)) { listener.received == [first.transactionID, second.transactionID] })
    }
}
