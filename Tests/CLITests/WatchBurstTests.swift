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
        try await watch.until("both sockets are live") { nodes.allSatisfy { watch.stderr.contains("watch: live on \($0)") } }

        let incoming = 700, outgoing = 50
        let sent = try await withThrowingTaskGroup(of: (Int, TransactionID?).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    if index < incoming { return (index, try await network.submit("burst \(index)", from: network.friend, to: network.me)) }
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
