import AdamantCore
import AdamantNodes
import Foundation

/// own-signals' records: `flags ‖ height ‖ timestamp ‖ length ‖ plaintext`, each made into a
/// type 8 transaction signed and encrypted here, and listed in input order in a node's answer.
///
/// flags: bit 0 the stranger sends it; bit 1 to the stranger instead of the service; bit 2 an
/// ordinary message (chat type 1); bit 3 encrypted for the stranger's key; bits 4–5 its block:
/// `1 + height`, none (in a pool), 0, or `Int64.max − height`; bit 6 listed twice, the second
/// time a block higher (pages overlap, and a node may have moved it); bit 7 a transfer of one
/// unit (type 0) instead, carrying the chat asset outside its signed bytes, as any node can
/// attach one (a signal copied from the chain, say). The timestamp is
/// `baseTimestamp + timestamp`; the nonce is the record's index, so an input means one answer.
enum SignalRecords {
    struct Record {
        var flags: UInt8 = 0
        var height: UInt8
        var timestamp: UInt8 = 0
        var plaintext: [UInt8]
    }

    static let maximumCount = 32
    static let baseTimestamp: Int32 = 276_050_000

    /// Sender × key sealed for: the X25519 work is done once.
    private static let chatKeys: [ChatKey] = [OwnSignalsFuzz.account, OwnSignalsFuzz.stranger].flatMap { sender in
        [OwnSignalsFuzz.service.publicKey, OwnSignalsFuzz.stranger.publicKey].map { partner in
            guard let key = try? ChatKey(secretKey: sender.secretKey, partner: partner) else {
                fatalError("fixed keys are usable")
            }
            return key
        }
    }

    static func parse(_ bytes: [UInt8]) -> [Record] {
        var records: [Record] = []
        var rest = bytes[...]
        while rest.count >= 4, records.count < maximumCount {
            let header = Array(rest.prefix(4))
            rest = rest.dropFirst(4)
            records.append(
                Record(
                    flags: header[0], height: header[1], timestamp: header[2],
                    plaintext: Array(rest.prefix(Int(header[3])))))
            rest = rest.dropFirst(Int(header[3]))
        }
        return records
    }

    static func encode(_ records: [Record]) -> [UInt8] {
        records.flatMap { [$0.flags, $0.height, $0.timestamp, UInt8($0.plaintext.count)] + $0.plaintext }
    }

    static func transactions(_ records: [Record]) -> [Transaction] {
        records.enumerated().flatMap { index, record -> [Transaction] in
            let flags = record.flags
            let sender = flags & 1 == 0 ? OwnSignalsFuzz.account : OwnSignalsFuzz.stranger
            var nonce = [UInt8](repeating: 0, count: ChatNonce.length)
            nonce[0] = UInt8(index)
            guard let nonce = try? ChatNonce(bytes: nonce) else { return [] }
            let asset = chatKeys[Int(flags & 1) * 2 + Int(flags >> 3 & 1)]
                .seal(
                    String(decoding: record.plaintext, as: UTF8.self), type: flags & 4 == 0 ? .signal : .message,
                    nonce: nonce)
            let recipient = flags & 2 == 0 ? OwnSignalsFuzz.service.address : OwnSignalsFuzz.stranger.address
            let timestamp = baseTimestamp + Int32(record.timestamp)
            guard
                var transaction = flags & 0x80 == 0
                    ? try? Transaction.chat(asset, to: recipient, timestamp: timestamp, signedBy: sender)
                    : try? Transaction.transfer(amount: 1, to: recipient, timestamp: timestamp, signedBy: sender)
            else { return [] }
            transaction.chat = asset  // a transfer's is not signed: hung on after, as a node can
            transaction.id = try? transaction.computedID()
            transaction.height = [1 + Int64(record.height), nil, 0, .max - Int64(record.height)][Int(flags >> 4 & 3)]
            guard flags & 0x40 != 0 else { return [transaction] }
            var moved = transaction
            moved.height = transaction.height.map { $0 == .max ? $0 : $0 + 1 }
            return [transaction, moved]
        }
    }

    /// A 0.10 node's answer to `/api/chats/get` listing `transactions`.
    static func answer(_ transactions: [Transaction]) -> [UInt8] {
        struct Answer: Encodable {
            var success = true
            var nodeTimestamp = OwnSignalsNode.nodeTimestamp
            var transactions: [Transaction]
            var count: String
        }
        let answer = Answer(transactions: transactions, count: String(transactions.count))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same bytes in every process
        guard let json = try? encoder.encode(answer) else { fatalError("transactions always encode") }
        return Array(json)
    }

    /// The transactions of an answer the client took, read as it reads them.
    static func listed(_ answer: [UInt8]) -> [Transaction]? {
        (try? JSONReader.read(answer, NodeClient.readPage))?.transactions
    }
}

/// One scripted node: its status and height fixed, and `answer` for the own-signal listing,
/// which must ask for the account's signals. Nothing leaves the process.
struct OwnSignalsNode: HTTPTransport {
    static let wallClockMillis: Int64 = 1_734_393_000_000
    static let nodeTimestamp = (wallClockMillis - AdamantTime.epochUnixMillis) / 1000
    static let height: Int64 = 1_034_307
    static let url: NodeURL = {
        guard let url = try? NodeURL("http://127.0.0.1:1") else { fatalError("a valid node URL") }
        return url
    }()

    let answer: [UInt8]

    func client() -> NodeClient {
        let list = NodeList(endpoints: [NodeEndpoint(url: Self.url)], nethash: .majority, source: .arguments)
        return NodeClient(
            pool: NodePool(nodes: list, transport: self, wallClock: ManualWallClock(unixMillis: Self.wallClockMillis)),
            deadline: .seconds(5))
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        let path = request.url.dropFirst(Self.url.description.count)
        let stamp = #""success":true,"nodeTimestamp":\#(Self.nodeTimestamp)"#
        if path.hasPrefix("/api/node/status") {
            let network =
                #""network":{"height":\#(Self.height),"nethash":"\#(Nethash.mainnet.hex)"},"version":{"version":"0.10.3"}"#
            return HTTPAnswer(
                status: 200,
                body: Array(
                    "{\(stamp),\(network),\"nodeTimestampMs\":\(Self.wallClockMillis - AdamantTime.epochUnixMillis)}"
                        .utf8))
        }
        if path.hasPrefix("/api/blocks/getHeight") {
            return HTTPAnswer(status: 200, body: Array("{\(stamp),\"height\":\(Self.height)}".utf8))
        }
        if path.hasPrefix("/api/chats/get?") {
            let asked = path.split(separator: "?", maxSplits: 1).last.map { Set($0.split(separator: "&")) } ?? []
            invariant(
                asked.isSuperset(of: ["senderId=\(OwnSignalsFuzz.account.address)", "type=3"]),
                "the own-signal listing asks for \(path)")
            return HTTPAnswer(status: 200, body: answer)
        }
        throw .unreachable("not scripted: \(path)")
    }
}
