import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// What anyone can send an account is no node's fault: a burst of real messages to it (and
/// its own replies among them) keeps the watch live on the nodes' sockets.
@Suite("adm-fetch watch, a burst of messages", .timeLimit(.minutes(4)))
struct WatchBurstTests {
    @Test func sevenHundredMessagesAtOnceLeaveEverySocketLive() async throws {
        let network = try await FetchDevnet()
        let watch = try await WatchProcess(network, name: "burst")
        let nodes = network.devnet.nodeURLs
        try await watch.until("both sockets are live") {
            nodes.allSatisfy { watch.stderr.contains("watch: live on \($0)") }
        }

        let incoming = 700
        let outgoing = 50
        let sent = try await withThrowingTaskGroup(of: (Int, TransactionID?).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    if index < incoming {
                        return (index, try await network.submit("burst \(index)", from: network.friend, to: network.me))
                    }
                    _ = try await network.submit("reply \(index)", from: network.me, to: network.friend)
                    return (index, nil)
                }
            }
            for _ in 0..<16 { add() }
            var ids: [Int: TransactionID] = [:]
            while let (index, id) = try await group.next() {
                if let id { ids[index] = id }
                if next < incoming + outgoing { add() }
            }
            return Set(ids.values.map(\.description))
        }
        #expect(sent.count == incoming)
        try await watch.until("every message is shown", within: 150) { watch.ids.count >= incoming }
        let result = try await watch.stop()
        #expect(result.status == 0, "\(watch.stderr)")
        #expect(watch.ids.count == incoming && Set(watch.ids) == sent, "each once")
        #expect(!watch.stderr.contains("set aside"), "\(watch.stderr)")
        #expect(nodes.allSatisfy { !watch.stderr.contains("\($0)'s socket is down") }, "\(watch.stderr)")
    }
}

@Suite("adm-fetch watch, messages waiting in the pools", .timeLimit(.minutes(2)))
struct WatchPoolTests {
    /// Messages sent while no watch ran, still in the nodes' pools (no block holds them yet, and
    /// a socket announces only what comes after it connects): shown at the start, not at the
    /// first block or poll.
    @Test func whatWaitsInThePoolsIsShownAtTheStart() async throws {
        let network = try await FetchDevnet(blockTime: .seconds(600))
        let first = try await WatchProcess(network, name: "first")
        #expect(try await first.stop().status == 0)
        var sent: [String] = []
        for text in ["one", "two", "three"] {
            sent.append(try await network.submit(text, from: network.friend, to: network.me).description)
        }
        let expected = sent
        let watch = try await WatchProcess(network, name: "pooled")
        try await watch.until("the three are shown") { watch.ids.count >= 3 }
        let result = try await watch.stop()
        #expect(result.status == 0, "\(watch.stderr)")
        #expect(watch.ids == expected, "once each, in the order sent")
    }
}
