import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

/// The devnet's request handling without sockets (`OfflineNode`): a submission body through
/// the node's schema checks, admission and pool, or a read endpoint with a hostile query.
///
/// Input: `selector ‖ rest`. selector % 8 is 0–2: POST `rest` to /api/transactions/process,
/// /api/chats/process or /api/transactions; 3–7: GET a read endpoint with `rest` as
/// `name=value&…`. selector ≥ 128 asks a 0.9.0 node. The sender of a submission is funded and
/// the node's clock set just after its timestamp, so signed seeds get through every check; what
/// is accepted is mined and read back, and must then be a transaction the client accepts.
enum DevnetFuzz {
    static let submissionPaths = ["/api/transactions/process", "/api/chats/process", "/api/transactions"]
    static let readPaths = [
        "/api/transactions", "/api/chats/get", "/api/transactions/get", "/api/accounts",
        "/api/transactions/unconfirmed",
    ]

    static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let rest = Array(data.dropFirst())
        let version = selector >= 128 ? NodeVersion(0, 9, 0) : NodeVersion.current
        let route = Int(selector % 8)
        guard route < submissionPaths.count else {
            var node = OfflineNode(version: version)
            let query = rest.fields(separatedBy: UInt8(ascii: "&")).map { pair in
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                return (name: parts[0].text, value: parts.count > 1 ? parts[1].text : "")
            }
            check(
                node.respond(
                    method: "GET", path: readPaths[(route - submissionPaths.count) % readPaths.count], query: query))
            return
        }

        let probe = try? JSONDecoder().decode(Probe.self, from: Data(rest))
        let stamp = probe?.transaction.timestamp.flatMap { Int64(exactly: $0) }.flatMap { seconds -> Int64? in
            let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            return overflow || !(0...Int64(Int32.max) * 1000).contains(millis)
                ? nil : AdamantTime.epochUnixMillis + millis + 1_000
        }
        var node = stamp.map { OfflineNode(version: version, nowUnixMillis: $0) } ?? OfflineNode(version: version)
        if let sender = probe?.transaction.senderPublicKey.flatMap({ try? PublicKey(hex: $0) }) {
            try? node.fund(sender.address, units: ADMAmount.totalSupply.units)
        }
        let answer = node.respond(method: "POST", path: submissionPaths[route], body: rest)
        check(answer)
        guard let answer, let accepted = try? JSONDecoder().decode(Accepted.self, from: Data(answer.body)),
            let id = TransactionID(accepted.transactionId)
        else { return }

        node.mine()
        let found = node.respond(
            method: "GET", path: "/api/transactions/get", query: [("id", id.description), ("returnAsset", "1")])
        check(found)
        guard let found else { return invariant(false, "an accepted transaction is never served") }
        do {
            let transaction = try JSONReader.read(found.body, NodeClient.readFound)
            let verified = try transaction.verify()
            invariant(verified == id, "the devnet serves \(verified) for the \(id) it accepted")
        } catch {
            invariant(false, "the devnet serves \(id) in a form the client rejects: \(error)")
        }
    }

    /// Every answer is node JSON, or Express's HTML page for an unknown path.
    static func check(_ answer: OfflineNode.Response?) {
        guard let answer, !answer.contentType.hasPrefix("text/html") else { return }
        let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        invariant(
            object?["success"] is Bool,
            "HTTP \(answer.status) answer without a success field: \(answer.body.count) bytes")
    }

    private struct Probe: Decodable {
        struct Fields: Decodable {
            var senderPublicKey: String?
            var timestamp: Double?
        }
        var transaction: Fields
    }

    private struct Accepted: Decodable { var transactionId: String }
}
