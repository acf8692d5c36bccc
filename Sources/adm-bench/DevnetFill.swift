import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

/// Puts many transactions on a devnet's chain: signed here with keys derived once, posted to
/// the nodes as a client would, a pool's worth at a time (the pool takes 1,000, a block 25).
/// (`Devnet.send` derives the sender's keys from its passphrase, PBKDF2 at ~3 ms, for every
/// transaction: five minutes for 100,000 before any other work.)
struct DevnetFill {
    let devnet: Devnet
    private let transport = CurlTransport()
    /// Concurrent posts: signing and the node's admission overlap on two cores. With one,
    /// chain order is the order of the stamps.
    private let lanes: Int
    static let batch = 900

    init(devnet: Devnet, lanes: Int = 4) {
        self.devnet = devnet
        self.lanes = lanes
    }

    /// Signs and posts `count` transactions made by `make`, stamped now, then mines until
    /// every one is in a block. `mined` is told each batch's first new height.
    func submit(
        _ count: Int, mined: (_ above: Int64) async throws -> Void = { _ in },
        make: @escaping @Sendable (Int, _ timestamp: Int32, _ timestampMs: Int64) throws -> Transaction
    ) async throws {
        var sent = 0
        let nodes = devnet.nodeURLs
        let lanes = self.lanes
        while sent < count {
            let (start, end) = (sent, min(count, sent + Self.batch))
            let above = devnet.height
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<lanes {
                    group.addTask { [transport] in
                        for index in stride(from: start + lane, to: end, by: lanes) {
                            let stamp = NodeClock().stamp(localUnixMillis: SystemWallClock().unixMillis())
                            let transaction = try make(index, stamp.timestamp, stamp.timestampMs)
                            try await Self.post(transaction, to: nodes[index % nodes.count], transport)
                        }
                    }
                }
                try await group.waitForAll()
            }
            // A mine moves 25 from the queue and forges 25; one more leaves the pool empty.
            for _ in 0...((end - start) / 25 + 1) { devnet.mine() }
            try await mined(above)
            sent = end
        }
    }

    private static func post(_ transaction: Transaction, to node: String, _ transport: CurlTransport) async throws {
        let request = HTTPRequest(
            method: .post, url: node + transaction.submissionPath, body: try transaction.submissionBody(),
            timeout: .seconds(10),
            connectTimeout: .seconds(2))
        let answer = try await transport.send(request)
        let text = String(decoding: answer.body, as: UTF8.self)
        guard answer.status == 200, text.contains("\"success\":true") else {
            throw BenchmarkError(description: "the node refused a transaction (HTTP \(answer.status)): \(text)")
        }
    }
}
