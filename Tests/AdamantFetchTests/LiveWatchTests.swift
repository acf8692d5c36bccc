import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation
import Testing

@testable import AdamantFetch

/// The watch on the nodes' sockets, with the listings as the record.
@Suite("Watch on sockets", .timeLimit(.minutes(2)))
struct LiveWatchTests {
    /// A network whose blocks come only from `mine()`, so what is sent stays in the pool.
    static func network(nodes: Int = 2, faults: [DevnetConfiguration.NodeFault] = []) async throws -> FetchNetwork {
        try await FetchNetwork(nodes: nodes) { configuration in
            configuration.blockTime = .seconds(600)
            configuration.poolInterval = .milliseconds(100)
            configuration.faults = faults
        }
    }

    /// Starts `watch` live and waits until `sockets` of its sockets are subscribed: what is sent
    /// before then, no socket hears.
    static func startLive(_ watch: WatchRun, sockets: Int = 2) async throws {
        try await watch.start(live: true, interval: .milliseconds(200))
        try await watch.until("\(sockets) sockets are live") {
            watch.events.all.filter { $0.hasPrefix("watch: live on") }.count >= sockets
        }
    }

    /// Requests to `/api/chats/get` on every node so far.
    static func listings(_ network: FetchNetwork) throws -> Int {
        try network.devnet.nodeURLs.indices.map {
            try network.devnet.requests(toNode: $0).filter { $0.path == "/api/chats/get" }.count
        }.reduce(0, +)
    }

    /// Waits until the listings were read twice more: at least one read began after now.
    static func listedAgain(_ network: FetchNetwork, _ watch: WatchRun) async throws {
        let before = try listings(network)
        try await watch.until("the listings are read again") { ((try? listings(network)) ?? 0) >= before + 2 }
    }

    @Test func aMessageIsShownFromThePoolAndNotAgainFromItsBlock() async throws {
        let network = try await Self.network()
        let watch = try WatchRun(network)
        try await Self.startLive(watch)
        let sent = try await network.send("before any block", from: network.friend, to: network.me).computedID()
        try await watch.until("it is shown") { watch.results.contains { $0.id == sent } }
        let shown = try #require(watch.notifications.first)
        #expect(shown.via == .socket && !shown.confirmed)
        #expect(
            shown.result.text == "before any block" && shown.result.failure == nil
                && shown.result.thread == network.friend.address)

        network.devnet.mine()
        try await Self.listedAgain(network, watch)
        await watch.stop()
        #expect(watch.results.map(\.id) == [sent], "shown once, pool then block")
    }

    @Test func whatTheSocketsMissTheListingsShow() async throws {
        let network = try await Self.network()
        let watch = try WatchRun(network)
        // Sent and put in a block before the watch starts: no socket was there to hear it.
        let missed = try await network.send("while no socket was open", from: network.friend, to: network.me)
            .computedID()
        network.devnet.mine()
        try await watch.start(from: .height(1), live: true, interval: .milliseconds(200))
        try await watch.until("it is shown") { watch.results.contains { $0.id == missed } }
        await watch.stop()
        #expect(watch.notifications.map(\.via) == [.poll] && watch.notifications.first?.confirmed == true)
    }

    /// One node's socket (and REST) alters what it sends: that event is not shown, and the
    /// message is shown once, from the honest node.
    @Test func aForgedEventIsNeverShown() async throws {
        let network = try await Self.network(faults: [.init(node: 0, fault: try Fault(parsing: "tamper"))])
        let watch = try WatchRun(network)
        try await Self.startLive(watch)
        let sent = try await network.send("honest text", from: network.friend, to: network.me).computedID()
        try await watch.until("it is shown") { watch.results.contains { $0.id == sent } }
        network.devnet.mine()
        try await Self.listedAgain(network, watch)
        await watch.stop()
        #expect(watch.results.map(\.id) == [sent])
        #expect(watch.results.first?.text == "honest text" && watch.results.first?.failure == nil)
    }

    /// A node whose socket and answers are all altered: nothing of it is ever shown.
    @Test func aNodeThatForgesEverythingShowsNothing() async throws {
        let network = try await Self.network(nodes: 1, faults: [.init(node: 0, fault: try Fault(parsing: "tamper"))])
        let watch = try WatchRun(network)
        try await Self.startLive(watch, sockets: 1)
        try await network.send("altered on the way", from: network.friend, to: network.me)
        network.devnet.mine()
        try await Self.listedAgain(network, watch)
        await watch.stop()
        #expect(
            watch.results.isEmpty, "\(watch.results.map { ($0.id, $0.failure.map(String.init(describing:)) ?? "-") })")
    }

    /// Each message once, whatever one node's socket does: it sends every event twice, says
    /// nothing, or forgets its sessions every second.
    @Test(arguments: ["socket-duplicate", "socket-silent", "socket-drop:1", "socket-forge", "socket-slow:400"])
    func eachMessageIsShownOnceWhateverTheSocketDoes(_ fault: String) async throws {
        let network = try await Self.network(nodes: 1, faults: [.init(node: 0, fault: try Fault(parsing: fault))])
        let watch = try WatchRun(network)
        try await Self.startLive(watch, sockets: 1)
        var sent: [TransactionID] = []
        for round in 0..<3 {
            sent.append(try await network.send("message \(round)", from: network.friend, to: network.me).computedID())
            if round == 1 { network.devnet.mine() }
        }
        network.devnet.mine()
        let expected = Set(sent)
        try await watch.until("all three are shown") { Set(watch.results.map(\.id)).isSuperset(of: expected) }
        try await Self.listedAgain(network, watch)
        await watch.stop()
        #expect(
            watch.results.map(\.id).sorted() == sent.sorted(),
            "each once: \(watch.notifications.map { ($0.result.id, $0.via) })")
        #expect(watch.results.allSatisfy { $0.failure == nil && $0.text?.hasPrefix("message ") == true })
    }

    /// A socket that fails session after session, breaking no rule, is set aside all the
    /// same, so another node's may take its place; the other stays live and shows the message.
    @Test func aSocketThatKeepsFailingIsSetAside() async throws {
        let network = try await Self.network(faults: [.init(node: 0, fault: try Fault(parsing: "socket-refuse"))])
        let watch = try WatchRun(network)
        try await Self.startLive(watch, sockets: 1)
        let refused = network.devnet.nodeURLs[0]
        try await watch.until("it is set aside") {
            watch.events.all.contains {
                $0.hasPrefix("watch: \(refused)'s socket is set aside for 600.0 seconds: 3 sessions in a row failed")
            }
        }
        let sent = try await network.send("through the other", from: network.friend, to: network.me).computedID()
        try await watch.until("it is shown") { watch.results.contains { $0.id == sent } }
        await watch.stop()
        #expect(watch.notifications.map(\.via) == [.socket])
    }

    /// An outgoing message and another account's are dropped quietly.
    @Test func onlyIncomingTransactionsOfThisAccountAreShown() async throws {
        let network = try await Self.network()
        let watch = try WatchRun(network)
        try await Self.startLive(watch)
        try await network.send("mine", from: network.me, to: network.friend)
        let last = try await network.send("theirs", from: network.friend, to: network.me).computedID()
        try await watch.until("the incoming one is shown") { watch.results.contains { $0.id == last } }
        await watch.stop()
        #expect(watch.results.map(\.id) == [last])
    }
}
