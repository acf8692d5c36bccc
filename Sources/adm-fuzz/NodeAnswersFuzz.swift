import AdamantCore
import AdamantNodes
import Foundation

/// What nodes answer, through the real pool and client: envelopes, statuses and the health
/// check, hedged reads of transactions, lists and accounts, and classified submissions.
///
/// Input: one byte choosing the operation (header % 12), 1–3 nodes (header / 12 % 3), a
/// pinned nethash (header / 36 odd) and a resend (header ≥ 128), then answers separated by 0x1E:
/// node k answers its status with answer 2k and every other request with answer 2k+1. An
/// answer may start with a 3-digit HTTP status and a space (else 200), or be 0x01 and the
/// numbers of a status (`status(numbers:)`); a missing one is a connection that failed.
/// Nothing leaves the process.
enum NodeAnswersFuzz {
    static let separator: UInt8 = 0x1E
    /// The node clocks in the seeds are near this (2024-12-17, 230021386 s after the epoch).
    static let wallClockMillis: Int64 = 1_734_393_000_000

    /// The docs' transfer (Vectors/transactions.json), looked up and submitted by id.
    static let transfer: Transaction? = try? Transaction(
        json: Array(
            #"""
            {"type":0,"amount":100000000,"senderId":"U14236667426471084862","senderPublicKey":"8cd9631f9f634a361ea3b85cbd0df882633e39e7d26d7bc615bbcf75e41524ef","recipientId":"U16655734187932477074","timestamp":63228852,"signature":"b3982d603be8f0246fa663e9f012bf28b198cd28f82473db1eb4a342d890f7a2a2c1845db8d256bb5bce1e64a9425822a91e10bf960a2e0b55e20b4841e4ae0b"}
            """#.utf8))
    static let transferID = TransactionID(number: 6_146_865_104_403_680_934)
    static let address = (try? Address("U14236667426471084862")) ?? Address(number: 1)

    static func run(_ data: [UInt8]) {
        guard let header = data.first, let transfer else { return }
        let nodeCount = 1 + Int(header / 12) % 3
        let answers = data.dropFirst().split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
        let urls = (1...nodeCount).compactMap { try? NodeURL("http://127.0.0.1:\($0)") }
        let network = ScriptedNetwork(urls: urls, answers: answers)
        let nethash: NethashRule = (header / 36) % 2 == 1 ? .pinned(.mainnet) : .majority
        let pool = NodePool(
            nodes: NodeList(endpoints: urls.map { NodeEndpoint(url: $0) }, nethash: nethash, source: .arguments),
            transport: network, wallClock: ManualWallClock(unixMillis: wallClockMillis))
        let client = NodeClient(pool: pool, deadline: .seconds(5))

        runBlocking {
            let outcome: String
            switch header % 12 {
            case 0: outcome = "\(await pool.checkHealth())"
            case 1: outcome = "\(await result { () throws(NodeError) in try await client.status() })"
            case 2: outcome = "\(await result { () throws(NodeError) in try await client.height() })"
            case 3: outcome = "\(await result { () throws(NodeError) in try await client.transaction(transferID) })"
            case 4: outcome = "\(await result { () throws(NodeError) in try await client.locate(transferID) })"
            case 5: outcome = "\(await result { () throws(NodeError) in try await client.chats(ChatQuery()) })"
            case 6:
                outcome =
                    "\(await result { () throws(NodeError) in try await client.transactions(TransactionQuery()) })"
            case 7: outcome = "\(await result { () throws(NodeError) in try await client.account(address) })"
            case 8: outcome = "\(await result { () throws(NodeError) in try await client.balance(of: address) })"
            case 9: outcome = "\(await result { () throws(NodeError) in try await client.publicKey(of: address) })"
            case 10: outcome = "\(await result { try await client.submit(transfer, isResend: header >= 128) })"
            default:
                outcome =
                    "\(await result { try await client.submitTransfer(amount: 1, to: address, signedBy: ChatFuzz.account) })"
            }
            _ = outcome
            _ = pool.reports.map {
                "\($0.url) \($0.health) \($0.health.name) \(String(describing: $0.status)) \(String(describing: $0.clock)) \(String(describing: $0.latency))"
            }
        }
    }

    private static func result<T, E: Error>(_ body: () async throws(E) -> T) async -> Result<T, E> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}

/// Answers from the input, by node and by whether the request is the status probe.
private struct ScriptedNetwork: HTTPTransport {
    let urls: [NodeURL]
    let answers: [[UInt8]]

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        guard let node = urls.firstIndex(where: { request.url.hasPrefix($0.description + "/") }) else {
            throw .unreachable("not a scripted node")
        }
        let index = 2 * node + (request.url.hasPrefix(urls[node].description + "/api/node/status") ? 0 : 1)
        guard index < answers.count else { throw .unreachable("connection refused") }
        return Self.answer(answers[index])
    }

    /// `NNN body` for another status than 200; `0x01 ‖ numbers` for a status made from them.
    static func answer(_ bytes: [UInt8]) -> HTTPAnswer {
        if bytes.first == 0x01 { return HTTPAnswer(status: 200, body: Array(status(numbers: bytes.dropFirst()).utf8)) }
        let digits = bytes.prefix(3)
        if bytes.count >= 4, digits.allSatisfy({ (0x30...0x39).contains($0) }), bytes[3] == UInt8(ascii: " "),
            let status = Int(String(decoding: digits, as: UTF8.self))
        {
            return HTTPAnswer(status: status, body: Array(bytes.dropFirst(4)))
        }
        return HTTPAnswer(status: 200, body: bytes)
    }

    /// A well-formed status whose numbers the fuzzer steers directly (JSON digits rarely mutate
    /// into edge values). Two bytes a number, for height, nodeTimestamp and nodeTimestampMs: a
    /// tag (0 a typical value, else one of `edges`) and a signed delta added to it; then a byte
    /// of flags: bit 0 drops the milliseconds, bit 1 another network, bits 2–3 the version.
    static func status(numbers: ArraySlice<UInt8>) -> String {
        let bytes = Array(numbers) + [UInt8](repeating: 0, count: max(0, 7 - numbers.count))
        func number(_ index: Int, typical: Int64) -> Int64 {
            let tag = Int(bytes[2 * index])
            let delta = Int64(Int8(bitPattern: bytes[2 * index + 1]))
            return (tag == 0 ? typical : edges[(tag - 1) % edges.count]) &+ delta
        }
        let height = number(0, typical: 1_034_307)
        let seconds = number(1, typical: 230_021_386)
        let millis = number(2, typical: seconds &* 1000 &+ 123)
        let flags = bytes[6]
        let nethash = flags & 2 == 0 ? Nethash.mainnet.hex : String(repeating: "38f153a8", count: 8)
        let version = ["0.10.3", "0.9.0", "0.8.0", "0.7.0"][Int(flags >> 2) & 3]
        let millisField = flags & 1 == 0 ? #","nodeTimestampMs":\#(millis)"# : ""
        return
            #"{"success":true,"nodeTimestamp":\#(seconds),"network":{"height":\#(height),"nethash":"\#(nethash)"},"version":{"version":"\#(version)"}\#(millisField)}"#
    }

    static let edges: [Int64] = [
        0, 1, -1, Int64(Int32.max), Int64(Int32.min), Int64(UInt32.max), .max, .min, .max / 1000, .min / 1000,
        9_300_000_000_000_000, 1 << 53, 4_102_444_800_000,
    ]
}
