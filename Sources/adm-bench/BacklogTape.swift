import AdamantCore
import AdamantNodes
import Foundation
import Synchronization

/// The devnet's own `/api/chats/get` rows, byte for byte, kept on disk as transactions are
/// mined and filed by the party a listing names (`isIn` or `senderId`), so a client can then
/// page through 100,000 of them without the devnet's listing in the way.
///
/// The devnet answers a page by copying every transaction of the chain it holds and sorting
/// the matches: 50 ms to half a second a page at 100,000 (a node's index takes a
/// millisecond), so what a client pays would drown in it. Asked right after each batch is
/// mined, for that batch alone, it is cheap.
final class BacklogTape: Sendable {
    private struct Row {
        let offset: Int64
        let count: Int
        let height: Int64
    }

    private struct State {
        var end: Int64 = 0
        /// Each party's rows in chain order.
        var rows: [String: [Row]] = [:]
    }

    private let descriptor: Int32
    private let state = Mutex(State())

    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BenchmarkError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    func count(of party: String) -> Int { state.withLock { $0.rows[party]?.count ?? 0 } }

    /// Files the rows of one listing page; `expected` are the transactions it must hold, in
    /// chain order, and `party` says under whom each is filed.
    func append(page body: [UInt8], expected: ArraySlice<Transaction>, party: (Transaction) -> String) throws {
        let rows = try Self.rows(of: body)
        guard rows.count == expected.count else {
            throw BenchmarkError(description: "a listing page held \(rows.count) rows, not \(expected.count)")
        }
        try state.withLock { state in
            for (row, transaction) in zip(rows, expected) {
                guard String(decoding: body[row], as: UTF8.self).contains("\"id\":\"\(transaction.id!)\"") else {
                    throw BenchmarkError(
                        description: "a listing page is not in chain order (expected \(transaction.id!))")
                }
                let written = body[row].withUnsafeBytes {
                    pwrite(descriptor, $0.baseAddress, $0.count, off_t(state.end))
                }
                guard written == row.count else { throw BenchmarkError(description: "cannot write the backlog tape") }
                state.rows[party(transaction), default: []].append(
                    Row(offset: state.end, count: row.count, height: transaction.height ?? 0))
                state.end += Int64(written)
            }
        }
    }

    /// A listing answer, in the devnet's envelope, of up to `limit` of the party's rows from
    /// the `offset`-th one above `height`, in chain order: the listing's order by timestamp
    /// while timestamps rise along the chain.
    func page(of party: String, above height: Int64, offset: Int, limit: Int) -> [UInt8]? {
        let (rows, total) = state.withLock { state -> (ArraySlice<Row>, Int) in
            let all = state.rows[party] ?? []
            let first = Self.firstIndex(in: all, above: height)
            let from = min(first + offset, all.count)
            return (all[from..<min(from + limit, all.count)], all.count - first)
        }
        var body = Array(
            "{\"success\":true,\"nodeTimestamp\":\(AdamantTime.timestamp(unixMillis: SystemWallClock().unixMillis())),\"transactions\":["
                .utf8)
        // One read for each run of rows that sit back to back in the file.
        var index = rows.startIndex
        while index < rows.endIndex {
            var end = index + 1
            while end < rows.endIndex && rows[end].offset == rows[end - 1].offset + Int64(rows[end - 1].count) {
                end += 1
            }
            let span = Int(rows[end - 1].offset - rows[index].offset) + rows[end - 1].count
            var bytes = [UInt8](repeating: 0, count: span)
            guard
                bytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, span, off_t(rows[index].offset)) })
                    == span
            else { return nil }
            for row in rows[index..<end] {
                if body.last != UInt8(ascii: "[") { body.append(UInt8(ascii: ",")) }
                let start = Int(row.offset - rows[index].offset)
                body += bytes[start..<start + row.count]
            }
            index = end
        }
        body += Array("],\"count\":\(total)}".utf8)
        return body
    }

    private static func firstIndex(in rows: [Row], above height: Int64) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].height > height { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The byte ranges of the elements of the answer's `transactions` array.
    static func rows(of body: [UInt8]) throws -> [Range<Int>] {
        let key = Array("\"transactions\":[".utf8)
        guard body.count >= key.count,
            let open = (0...(body.count - key.count)).first(where: { body[$0..<$0 + key.count].elementsEqual(key) })
        else {
            throw BenchmarkError(
                description:
                    "a listing answer without transactions: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        var rows: [Range<Int>] = []
        var depth = 0
        var strings = JSONStrings()
        var start = open + key.count
        for index in start..<body.count where strings.isStructure(body[index]) {
            switch body[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: "]") where depth == 0:
                if index > start { rows.append(start..<index) }
                return rows
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                rows.append(start..<index)
                start = index + 1
            default: break
            }
        }
        throw BenchmarkError(description: "a listing answer whose transactions never end")
    }

    /// Asks `node` for the rows above `height` (the batch just mined, so the answer is cheap)
    /// with `filter` (`isIn=…` or `type=3`), and files them.
    func record(
        _ batch: ArraySlice<Transaction>, above height: Int64, filter: String, from node: String,
        _ transport: any HTTPTransport,
        party: (Transaction) -> String
    ) async throws {
        var offset = 0
        while offset < batch.count {
            // No orderBy: chain order, which the tape keeps.
            let url = node + "/api/chats/get?\(filter)&fromHeight=\(height)&limit=100&offset=\(offset)"
            let answer = try await transport.send(
                HTTPRequest(url: url, timeout: .seconds(10), connectTimeout: .seconds(2)))
            guard answer.status == 200 else {
                throw BenchmarkError(description: "the devnet's listing answered HTTP \(answer.status)")
            }
            let expected = batch.dropFirst(offset).prefix(100)
            try append(page: answer.body, expected: expected, party: party)
            offset += expected.count
        }
    }
}

/// A node that answers the listings of the tape's parties from the tape, and passes
/// everything else (the health check, whose clock must be now; the height) to the devnet.
struct BacklogNode: HTTPTransport {
    let tape: BacklogTape
    let live: any HTTPTransport

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        if Task.isCancelled { throw .cancelled }
        guard request.method == .get, let parts = URLComponents(string: request.url), parts.path == "/api/chats/get",
            let party = parts.queryItems?.first(where: { $0.name == "isIn" || $0.name == "senderId" })?.value
        else {
            return try await live.send(request)
        }
        let value = { (name: String) in parts.queryItems?.first { $0.name == name }?.value.flatMap { Int($0) } }
        guard
            let body = tape.page(
                of: party, above: Int64(value("fromHeight") ?? 0), offset: value("offset") ?? 0,
                limit: value("limit") ?? 100)
        else {
            throw .failed("the backlog tape cannot be read")
        }
        return HTTPAnswer(status: 200, body: body)
    }
}
