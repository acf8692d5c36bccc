import Foundation
import Synchronization

/// A SOCKS5 server of the tests' own on a loopback port (RFC 1928, username/password auth of
/// RFC 1929), an HTTP proxy's CONNECT too, which records what each connection asked for: the
/// username, the destination as sent (a name unresolved, or an address), and what the client
/// sent through it. It relays to the destination, with names relayed only if the test gave
/// them (to 127.0.0.1, never looked up), or misbehaves as told. Each connection runs on
/// threads of its own. Every socket is close-on-exec, so no child a test starts holds one.
final class SocksPeer: Sendable {
    /// What one connection asked for.
    struct Request: Sendable, Hashable {
        /// Nil when the client offered no username/password auth.
        var username: String?
        /// As the client sent it: a name (ATYP 3) or a dotted IPv4 address (ATYP 1).
        var host: String
        var port: Int
        /// ATYP 3: the client left the name to the proxy.
        var sentAsName: Bool
        /// The client hung up while a slow relay built its "circuit": it gave up waiting.
        var abandoned = false
        /// What the client sent once the tunnel was open (an HTTP proxy's CONNECT head, for
        /// a CONNECT), at most `SocksPeer.keptBytes`.
        var sent: [UInt8] = []

        /// The HTTP requests in `sent`: each request line (`GET /api/…`) and body.
        var http: [(line: String, body: String)] { Self.requests(in: sent) }
        var httpLines: [String] { http.map(\.line) }
        /// The bodies of the POSTs.
        var posts: [String] { http.filter { $0.line.hasPrefix("POST ") }.map(\.body) }

        private static func requests(in bytes: [UInt8]) -> [(line: String, body: String)] {
            var found: [(line: String, body: String)] = []
            var rest = bytes[...]
            while let end = rest.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
                let length =
                    head.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                let body = rest[end.upperBound...].prefix(max(0, length))
                found.append((String(head.first ?? ""), String(decoding: body, as: UTF8.self)))
                rest = rest[body.endIndex...]
            }
            return found
        }
    }

    enum Behavior: Sendable {
        /// Connect to the destination and pipe both ways.
        case relay
        /// The same, after waiting this long before answering the CONNECT, as Tor does while
        /// it builds a circuit.
        case slowRelay(Duration)
        /// Answer the CONNECT with this SOCKS reply code (5: connection refused).
        case refuse(UInt8)
        /// Take the request, then say nothing while holding the connection.
        case stall
        /// Answer the CONNECT with success, then take what the client sends and say nothing.
        case stallAfterConnect
        /// Answer the greeting with these bytes and close.
        case garbage(String, [UInt8])
        /// Answer the CONNECT with these bytes and close.
        case garbageReply(String, [UInt8])
    }

    /// What a connection's record keeps of what the client sent.
    static let keptBytes = 1 << 20

    let port: Int
    private let listener: Int32
    private let names: Set<String>
    private let state = Mutex(
        (requests: [Request](), behavior: Behavior.relay, held: [Int32](), connected: [ContinuousClock.Instant]()))

    /// Listening on 127.0.0.1, a port of the kernel's choice. `names`: host names it relays to
    /// 127.0.0.1 on the port asked for (an onion name of a test, say).
    init(names: Set<String> = []) throws {
        self.names = names
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PeerError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw PeerError("bind: \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting and drops what it holds; relays in progress end with their peers.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in state.withLock({ $0.held }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    /// When the first client after `instant` connected: a process started then is running by then.
    func firstConnection(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { $0.connected.first { $0 >= instant } }
    }

    func behave(_ behavior: Behavior) { state.withLock { $0.behavior = behavior } }

    var url: String { "socks5h://127.0.0.1:\(port)" }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // Glibc's accept4 is not imported
            state.withLock { $0.connected.append(.now) }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        var keepOpen = false
        defer { if !keepOpen { close(client) } }
        guard let greeting = read(client, 2) else { return }
        if greeting == Array("CO".utf8) {
            keepOpen = connectOverHTTP(client, greeting)
            return
        }
        guard greeting[0] == 5, let methods = read(client, Int(greeting[1])) else { return }
        let behavior = state.withLock { $0.behavior }
        if case .garbage(_, let bytes) = behavior {
            _ = write(client, bytes)
            return
        }
        var username: String?
        if methods.contains(2) {
            guard write(client, [5, 2]), let head = read(client, 2), head[0] == 1,
                let name = read(client, Int(head[1])),
                let passwordLength = read(client, 1), read(client, Int(passwordLength[0])) != nil,
                write(client, [1, 0])
            else { return }
            username = String(decoding: name, as: UTF8.self)
        } else {
            guard methods.contains(0), write(client, [5, 0]) else { return }
        }
        guard let request = read(client, 4), request[0] == 5, request[1] == 1 else { return }
        let host: String
        let sentAsName: Bool
        switch request[3] {
        case 1:
            guard let bytes = read(client, 4) else { return }
            (host, sentAsName) = (bytes.map(String.init).joined(separator: "."), false)
        case 3:
            guard let length = read(client, 1), let name = read(client, Int(length[0])) else { return }
            (host, sentAsName) = (String(decoding: name, as: UTF8.self), true)
        default:
            _ = write(client, [5, 8, 0, 1, 0, 0, 0, 0, 0, 0])  // address type not supported
            return
        }
        guard let portBytes = read(client, 2) else { return }
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        let index = state.withLock { state in
            state.requests.append(Request(username: username, host: host, port: port, sentAsName: sentAsName))
            return state.requests.count - 1
        }
        let success: [UInt8] = [5, 0, 0, 1, 127, 0, 0, 1, 0, 0]
        switch behavior {
        case .refuse(let code):
            _ = write(client, [5, code, 0, 1, 0, 0, 0, 0, 0, 0])
        case .stall:
            keepOpen = true
            state.withLock { $0.held.append(client) }
        case .stallAfterConnect:
            guard write(client, success) else { return }
            keepOpen = true
            state.withLock { $0.held.append(client) }
            // Read, so the client's request is sent and taken, and answer nothing.
            Thread.detachNewThread { [self] in
                while let bytes = readSome(client) { record(bytes, at: index) }
            }
        case .garbage:
            return
        case .garbageReply(_, let bytes):
            _ = write(client, bytes)
        case .relay, .slowRelay:
            if case .slowRelay(let wait) = behavior {
                Thread.sleep(forTimeInterval: Double(wait / .milliseconds(1)) / 1000)
                var byte: UInt8 = 0
                if recv(client, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 {
                    state.withLock { $0.requests[index].abandoned = true }
                    return
                }
            }
            let target = sentAsName ? (names.contains(host) ? "127.0.0.1" : nil) : host
            guard let target, let upstream = Self.connect(to: target, port: port) else {
                _ = write(client, [5, 4, 0, 1, 0, 0, 0, 0, 0, 0])  // host unreachable
                return
            }
            guard write(client, success) else {
                close(upstream)
                return
            }
            keepOpen = true
            Self.pipe(client, upstream) { [self] bytes in record(bytes, at: index) }
        }
    }

    private func record(_ bytes: [UInt8], at index: Int) {
        state.withLock { state in
            let room = Self.keptBytes - state.requests[index].sent.count
            state.requests[index].sent += bytes.prefix(max(0, room))
        }
    }

    /// An HTTP proxy's CONNECT, its request head read to the blank line; true when relaying.
    private func connectOverHTTP(_ client: Int32, _ start: [UInt8]) -> Bool {
        var head = start
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            guard head.count < 8_192, let byte = read(client, 1) else { return false }
            head += byte
        }
        let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
            let port = Int(parts[1][parts[1].index(after: colon)...])
        else {
            return false
        }
        let host = String(parts[1][..<colon])
        state.withLock {
            $0.requests.append(Request(username: nil, host: host, port: port, sentAsName: true, sent: head))
        }
        guard let upstream = Self.connect(to: host, port: port) else {
            _ = write(client, Array("HTTP/1.1 502 Bad Gateway\r\n\r\n".utf8))
            return false
        }
        guard write(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else {
            close(upstream)
            return false
        }
        Self.pipe(client, upstream) { _ in }
        return true
    }

    /// Copies each way on its own thread, showing `fromA` what `a` sends; each side's end
    /// closes the other.
    private static func pipe(_ a: Int32, _ b: Int32, fromA: @escaping @Sendable ([UInt8]) -> Void) {
        let done = Atomic(0)
        for (from, to) in [(a, b), (b, a)] {
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while true {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(from, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    if from == a { fromA(Array(buffer[0..<count])) }
                    guard Self.writeAll(to, Array(buffer[0..<count])) else { break }
                }
                shutdown(to, Int32(SHUT_WR))
                if done.add(1, ordering: .sequentiallyConsistent).newValue == 2 {
                    close(a)
                    close(b)
                }
            }
        }
    }

    private static func connect(to host: String, port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Exactly `count` bytes, or nil at end of file or an error.
    private func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }

    /// What one read gives, or nil at end of file or an error.
    private func readSome(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            return got > 0 ? Array(buffer[0..<got]) : nil
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool { Self.writeAll(fd, bytes) }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let wrote = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { return false }
            sent += wrote
        }
        return true
    }

    struct PeerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A loopback port bound and never listened on, for as long as this lives: connecting to it
/// is refused, and the kernel gives it to nobody else meanwhile.
final class ClosedPort: Sendable {
    let port: Int
    private let fd: Int32

    init() throws { (fd, port) = try Self.loopback(listening: false) }

    deinit { close(fd) }

    /// A TCP socket bound to a free loopback port, listening if asked; and the port.
    static func loopback(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 64) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw SocksPeer.PeerError("bind: \(errno)") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
