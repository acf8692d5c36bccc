import Foundation
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A tiny HTTP peer on 127.0.0.1 for testing the curl transport without a node: it can stay
/// silent, answer one canned response per connection, or stream bytes forever.
final class LoopbackServer: Sendable {
    enum Mode: Sendable {
        /// Listens but never accepts: connections complete in the kernel and get no answer.
        case silent
        /// Reads each request and never answers, until the client hangs up: the request is
        /// seen to arrive (`requests`) and then waits.
        case mute
        /// Answers each request with these raw bytes (status line, headers, body).
        case canned(String)
        /// The same, for a response whose body is not text.
        case cannedBytes([UInt8])
        /// Sends headers, then body bytes until the client hangs up.
        case endlessBody
    }

    let port: UInt16
    private let socket: Int32
    /// Whether a thread serves it, and so closes its socket when done.
    private let served: Bool
    private let inbox = Inbox()

    init(_ mode: Mode) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(socket, $0, length)
                _ = listen(socket, 8)
                _ = getsockname(socket, $0, &length)
            }
        }
        port = UInt16(bigEndian: address.sin_port)
        if case .silent = mode {
            served = false
            return
        }
        served = true
        let inbox = inbox
        Thread { Self.serve(socket, mode, inbox) }.start()
    }

    /// Shuts the socket and every connection being served, which ends the serving thread
    /// (a stream without end, a wait for a request included); the thread closes the socket
    /// itself once it is out of `accept`. Closed here, its number could be a later server's
    /// socket while the thread, back from a connection, called `accept` on it again and
    /// answered that server's requests in its own way.
    deinit {
        shutdown(socket, Int32(SHUT_RDWR))  // wakes a blocked accept, and fails the next
        inbox.clients.withLock { clients in for client in clients { shutdown(client, Int32(SHUT_RDWR)) } }
        if !served { close(socket) }
    }

    /// The request heads and bodies received so far.
    var requests: [String] { inbox.requests.withLock { $0 } }

    /// A loopback port nothing listens on: bound once, then closed.
    static func closedPort() -> UInt16 {
        let server = LoopbackServer(.silent)
        return server.port  // deinit closes it
    }

    private static func serve(_ socket: Int32, _ mode: Mode, _ inbox: Inbox) {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else {
                close(socket)
                return
            }
            inbox.clients.withLock { _ = $0.insert(client) }
            defer {
                // Out of the set before the number is free for another descriptor.
                inbox.clients.withLock { _ = $0.remove(client) }
                close(client)
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(client, &buffer, buffer.count, 0)
            inbox.requests.withLock { $0.append(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)) }
            switch mode {
            case .silent: return
            case .mute: while recv(client, &buffer, buffer.count, 0) > 0 {}
            case .canned(let response): _ = write(client, Array(response.utf8))
            case .cannedBytes(let response): _ = write(client, response)
            case .endlessBody:
                _ = write(client, Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n".utf8))
                let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16_384)
                while write(client, chunk) {}
            }
        }
    }

    /// False once the peer is gone. MSG_NOSIGNAL: a closed peer must not SIGPIPE the test run.
    private static func write(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}

/// Shared with the serving thread, which must not keep the server itself alive.
private final class Inbox: Sendable {
    let requests = Mutex<[String]>([])
    /// The connections being served, which the server's end shuts down.
    let clients = Mutex<Set<Int32>>([])
}
