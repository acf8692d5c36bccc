import AdamantCore
import Foundation

@testable import AdamantDevnet

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Accounts and transactions

/// Accounts made once: deriving keys costs a PBKDF2 each.
enum Fixtures {
    static let alice = DevnetAccount.random()
    static let bob = DevnetAccount.random()
    static let aliceKeys = alice.keyPair
    static let bobKeys = bob.keyPair
}

/// The real clock's ADAMANT timestamp.
func nowTimestamp(offsetSeconds: Int64 = 0) -> Int32 {
    Int32(AdamantTime.timestamp(unixMillis: SystemWallClock().unixMillis()) + offsetSeconds)
}

func transfer(
    _ units: Int64, to recipient: Address = Fixtures.bob.address, from keys: KeyPair = Fixtures.aliceKeys,
    timestamp: Int32 = nowTimestamp()
) throws -> Transaction {
    try Transaction.transfer(amount: units, to: recipient, timestamp: timestamp, signedBy: keys)
}

func message(
    _ text: String, to recipient: KeyPair = Fixtures.bobKeys, from keys: KeyPair = Fixtures.aliceKeys,
    type: ChatType = .message, timestamp: Int32 = nowTimestamp()
) throws -> Transaction {
    let asset = try ChatKey(secretKey: keys.secretKey, partner: recipient.publicKey).seal(text, type: type)
    return try Transaction.chat(asset, to: recipient.address, timestamp: timestamp, signedBy: keys)
}

/// The submission body with one field replaced or removed.
func body(of transaction: Transaction, setting key: String? = nil, to value: JSONValue? = nil) throws -> JSONValue {
    let body = try JSONValue.parse(try transaction.submissionBody())
    guard let key, var object = body["transaction"] else { return body }
    object = value.map { object.setting(key, to: $0) } ?? object.removing(key)
    return ["transaction": object]
}

extension JSONValue {
    var arrayValue: [JSONValue] { if case .array(let elements) = self { elements } else { [] } }
    var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    var isNull: Bool { if case .null = self { true } else { false } }

    func removing(_ key: String) -> JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.key != key })
    }
}

// MARK: - A devnet per test

/// A devnet whose blocks come only from `mine()` unless a short block time is asked for.
final class TestNetwork {
    let devnet: Devnet

    init(
        nodes: Int = 2, blockTime: Duration = .seconds(600), version: NodeVersion = .current,
        configure: (inout DevnetConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = nodes
        configuration.blockTime = blockTime
        configuration.poolInterval = blockTime
        configuration.ansPollInterval = .seconds(600)
        configuration.nsPollInterval = .seconds(600)
        configuration.nodeVersion = version
        configuration.allocations = [.init(Fixtures.alice, amount: try ADMAmount("100"))]
        configure(&configuration)
        devnet = try Devnet(configuration)
    }

    deinit { devnet.stop() }

    var node: String { devnet.nodeURLs[0] }

    func get(_ pathAndQuery: String, node index: Int = 0) throws -> HTTPResult {
        try HTTPClient.send("GET", devnet.nodeURLs[index] + pathAndQuery)
    }

    func submit(_ transaction: Transaction, node index: Int = 0, path: String? = nil) throws -> HTTPResult {
        try HTTPClient.send(
            "POST", devnet.nodeURLs[index] + (path ?? transaction.submissionPath),
            body: try transaction.submissionBody())
    }

    func control(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> HTTPResult {
        try HTTPClient.send(method, devnet.controlURL + path, body: body?.bytes)
    }
}

/// Polls `condition` until it holds or the deadline passes; no fixed sleeps.
func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

/// The same for async tests: it waits with `Task.sleep`, so a long wait leaves the cooperative
/// pool (two threads here) to the suites running alongside.
func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}

// MARK: - A small blocking HTTP/1.1 client over loopback sockets

struct HTTPResult {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]
    /// False when the connection closed or timed out before Content-Length bytes arrived.
    let complete: Bool

    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// `error` of a node envelope.
    var error: String? { json["error"]?.string }
}

enum HTTPClientError: Error, Equatable {
    case refused
    /// Nothing, or no complete header, arrived in time.
    case timedOut(receivedBytes: Int)
}

/// One keep-alive connection to 127.0.0.1.
final class HTTPConnection {
    private let socket: Int32
    private let port: Int
    private var pending: [UInt8] = []

    init(url: String) throws {
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" }
        port = Int(authority.split(separator: ":")[1])!
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // A send into a server that stopped reading must fail, not block the test forever.
        var sendTimeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: once every stored property is set, a throwing init still runs deinit,
        // which closes the socket; a second close would close whatever another thread opened
        // under the same number meanwhile (a server's connection, a database file).
        guard connected == 0 else { throw HTTPClientError.refused }
    }

    deinit { close(socket) }

    func send(_ method: String, _ pathAndQuery: String, body: [UInt8]? = nil, timeout: Double = 5) throws -> HTTPResult
    {
        sendWithoutWaiting(method, pathAndQuery, body: body)
        return try readResponse(deadline: Date().addingTimeInterval(timeout))
    }

    /// Sends a request and leaves the answer, if any, unread.
    func sendWithoutWaiting(_ method: String, _ pathAndQuery: String, body: [UInt8]? = nil) {
        _ = Self.request(method, pathAndQuery, port: port, body: body).withUnsafeBytes {
            Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
    }

    private static func request(_ method: String, _ pathAndQuery: String, port: Int, body: [UInt8]?) -> [UInt8] {
        var head = "\(method) \(pathAndQuery) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// True once the server has closed the connection (whatever it sent before), within the deadline.
    func isClosedByPeer(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000)) > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            if recv(socket, &buffer, buffer.count, 0) <= 0 { return true }
        }
    }

    private func readResponse(deadline: Date) throws -> HTTPResult {
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if headerEnd == nil, let end = pending.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headerEnd = end
                contentLength = Int(Self.headers(pending[..<end])["content-length"] ?? "0") ?? 0
            }
            if let headerEnd, pending.count >= headerEnd + contentLength {
                return finish(headerEnd, contentLength, complete: true)
            }
            guard receive(deadline: deadline) else {
                guard let headerEnd else { throw HTTPClientError.timedOut(receivedBytes: pending.count) }
                return finish(headerEnd, contentLength, complete: false)
            }
        }
    }

    /// Waits for bytes until the deadline; false on timeout or close.
    private func receive(deadline: Date) -> Bool {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return false }
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(left * 1000)) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        pending += buffer[..<count]
        return true
    }

    private func finish(_ headerEnd: Int, _ contentLength: Int, complete: Bool) -> HTTPResult {
        let head = pending[..<headerEnd]
        let statusLine = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let status = Int(statusLine.split(separator: " ")[1]) ?? 0
        let bodyEnd = min(pending.count, headerEnd + contentLength)
        let result = HTTPResult(
            status: status, headers: Self.headers(head), body: Array(pending[headerEnd..<bodyEnd]), complete: complete)
        pending.removeFirst(bodyEnd)
        return result
    }

    private static func headers(_ head: ArraySlice<UInt8>) -> [String: String] {
        var headers = [String: String]()
        for line in String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return headers
    }
}

enum HTTPClient {
    /// One request on a fresh connection.
    static func send(_ method: String, _ url: String, body: [UInt8]? = nil, timeout: Double = 5) throws -> HTTPResult {
        let afterHost = url.dropFirst("http://".count)
        let path = afterHost.firstIndex(of: "/").map { String(afterHost[$0...]) } ?? "/"
        return try HTTPConnection(url: url).send(method, path, body: body, timeout: timeout)
    }
}
