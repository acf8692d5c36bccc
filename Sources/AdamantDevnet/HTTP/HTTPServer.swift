// The only file that drives libmicrohttpd (the socket calls it needs live in the C shim).
import AdamantCore
import CMicroHTTPD
import Foundation
import Synchronization

/// A libmicrohttpd daemon on a `LoopbackPort` with one thread per connection, so a handler may
/// block (a delayed, stalled or trickled reply) without holding up any other client. Keep-alive
/// and HTTP/1.1 framing are the library's. No connection keeps its thread for long: an idle one
/// is closed after the connection timeout, one held unanswered is let go when its client leaves
/// or the timeout passes, and connections beyond the cap are answered 503 and closed.
final class HTTPServer: Sendable {
    /// Runs on the connection's thread; `HeldConnection` tells a handler that keeps the
    /// connection waiting when to let it go.
    typealias Handler = @Sendable (HTTPRequest, HeldConnection) -> HTTPReply

    struct Limits: Sendable {
        /// An idle connection, or a request held unanswered, is closed after this long (whole
        /// seconds, at least one).
        var connectionTimeout: Duration = .seconds(30)
        /// Connections open at once; the ones beyond are answered 503 and closed. Past
        /// `maxConnections + extraConnectionsAnswered503` the library itself closes new ones unanswered.
        var maxConnections = 256

        static let extraConnectionsAnswered503 = 64

        var timeoutSeconds: UInt32 {
            let (seconds, attoseconds) = connectionTimeout.components
            return UInt32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
        }
    }

    enum StartError: Error, CustomStringConvertible {
        case cannotListen(port: UInt16, reason: String)
        var description: String {
            switch self {
            case .cannotListen(let port, let reason): "cannot listen on 127.0.0.1:\(port): \(reason)"
            }
        }
    }

    /// Bodies above this get the node's body-parser error.
    static let maxBodyBytes = 2 * 1024 * 1024

    let port: LoopbackPort
    let limits: Limits
    private let handler: Handler
    /// The daemon, confined behind the lock: `OpaquePointer` is not Sendable.
    private let daemon = Mutex<OpaquePointer?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let openConnections = Atomic<Int>(0)
    private let acceptedConnections = Atomic<Int>(0)

    /// Connections accepted since start: what a client's keep-alive saves shows here.
    var connectionsAccepted: Int { acceptedConnections.load(ordering: .relaxed) }

    /// Takes a free port at once, and holds it until the server goes away; `start()` serves on it.
    init(limits: Limits = Limits(), handler: @escaping Handler) throws(StartError) {
        port = try LoopbackPort()
        self.limits = limits
        self.handler = handler
    }

    deinit { stop() }

    /// True while `stop()` runs: handlers that are holding a connection open let go.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Listens on the port, unless it already does.
    func start() throws(StartError) {
        try daemon.withLock { daemon throws(StartError) in
            guard daemon == nil else { return }
            let listening = try port.listeningSocket()
            // The library closes the socket it serves when it stops; whether it does when it
            // fails to start is unspecified, so it gets a copy and this one is closed here.
            // The copy is close-on-exec as well: a child spawned meanwhile that inherited it
            // would keep the port listening after a stop, with nobody accepting.
            defer { close(listening) }
            let served = fcntl(listening, F_DUPFD_CLOEXEC, 0)
            let context = Unmanaged.passUnretained(self).toOpaque()
            let limit = UInt32(clamping: limits.maxConnections + Limits.extraConnectionsAnswered503)
            guard served >= 0,
                let started = adm_mhd_start(
                    served, limits.timeoutSeconds, limit, accessHandler, context, requestCompleted, connectionNotified,
                    context)
            else {
                throw .cannotListen(port: port.number, reason: "libmicrohttpd did not start")
            }
            daemon = started
        }
    }

    /// Stops listening (the port stays held, so connecting is refused) and waits for every
    /// connection thread to finish.
    func stop() {
        guard
            let running = daemon.withLock({ daemon in
                defer { daemon = nil }
                return daemon
            })
        else { return }
        stopping.store(true, ordering: .relaxed)
        MHD_stop_daemon(running)
        stopping.store(false, ordering: .relaxed)
    }

    // MARK: Called on connection threads

    /// Counts connections as the library opens and closes them, and marks those beyond the cap.
    fileprivate func connection(started: Bool, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard started else {
            openConnections.subtract(1, ordering: .relaxed)
            return
        }
        acceptedConnections.add(1, ordering: .relaxed)
        let open = openConnections.add(1, ordering: .relaxed).newValue
        if open > limits.maxConnections { context.pointee = overCapMarker }
    }

    fileprivate func access(
        _ connection: OpaquePointer, method: String, path: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // First call: headers only. Then body chunks, then a last call with nothing left.
        guard let pending = context.pointee else {
            if adm_mhd_socket_context(connection) == overCapMarker {
                let refusal = HTTPResponse.json(
                    [
                        "success": false,
                        "error": .string("too many connections: this server takes \(limits.maxConnections) at once"),
                    ],
                    status: 503)
                return queue(refusal, on: connection, closing: true)
            }
            context.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
            return .YES
        }
        let request = Unmanaged<PendingRequest>.fromOpaque(pending).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, uploadSize.pointee <= Self.maxBodyBytes - request.body.count {
                request.body += UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)
            } else {
                request.isTooLarge = true
            }
            uploadSize.pointee = 0
            return .YES
        }
        if request.isTooLarge {
            return queue(NodeAPI.apiError("request entity too large"), on: connection)
        }
        let parsed = HTTPRequest(method: method, path: path, query: Self.query(of: connection), body: request.body)
        let held = HeldConnection(socket: adm_mhd_connection_fd(connection), server: self)
        switch handler(parsed, held) {
        case .respond(let response): return queue(response, on: connection, held: held)
        case .hangUp: return .NO
        }
    }

    private static func query(of connection: OpaquePointer) -> [(name: String, value: String)] {
        let collector = QueryCollector()
        withExtendedLifetime(collector) {
            // The count of values it visited; the collector has them all.
            _ = MHD_get_connection_values(
                connection, .GET_ARGUMENT_KIND, collectQueryArgument, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }

    /// `.NO` (the library closes the connection) when the response cannot be built.
    private func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, held: HeldConnection? = nil, closing: Bool = false
    ) -> MHD_Result {
        let size = response.body.count
        let mhdResponse: OpaquePointer?
        switch response.delivery {
        case .whole:
            mhdResponse = response.body.withUnsafeBytes {
                MHD_create_response_from_buffer(
                    size, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .truncated, .trickled:
            let stream = StreamedBody(bytes: response.body, delivery: response.delivery, connection: held)
            mhdResponse = MHD_create_response_from_callback(
                UInt64(size), 1024, readStreamedBody, Unmanaged.passRetained(stream).toOpaque(), releaseStreamedBody)
        }
        guard let mhdResponse else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        var headers = [("Content-Type", response.contentType), ("Access-Control-Allow-Origin", "*")]
        if closing { headers.append(("Connection", "close")) }
        for (name, value) in headers where MHD_add_response_header(mhdResponse, name, value) != .YES { return .NO }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }
}

/// The connection a request came on, for a handler that keeps it waiting.
struct HeldConnection: Sendable {
    fileprivate let socket: Int32
    fileprivate let server: HTTPServer
    private let heldSince = ContinuousClock.now

    fileprivate init(socket: Int32, server: HTTPServer) {
        self.socket = socket
        self.server = server
    }

    /// Nobody will read an answer: the client has closed or reset the connection, or the
    /// server is stopping.
    var isAbandoned: Bool { server.isStopping || socket < 0 || adm_peer_has_gone(socket) != 0 }

    /// Held unanswered for the connection timeout.
    var hasExpired: Bool { ContinuousClock.now - heldSince >= .seconds(Int(server.limits.timeoutSeconds)) }
}

/// What the connection-started notification leaves for a connection beyond the cap.
private nonisolated(unsafe) let overCapMarker = UnsafeMutableRawPointer(bitPattern: 1)

/// The body of one request as it arrives; owned by libmicrohttpd's per-request slot.
private final class PendingRequest {
    var body: [UInt8] = []
    var isTooLarge = false
}

private final class QueryCollector {
    var pairs: [(name: String, value: String)] = []
}

/// A body sent in a faulty way, pulled by libmicrohttpd on the connection's own thread.
private final class StreamedBody {
    let bytes: [UInt8]
    let delivery: HTTPResponse.Delivery
    let connection: HeldConnection?

    init(bytes: [UInt8], delivery: HTTPResponse.Delivery, connection: HeldConnection?) {
        self.bytes = bytes
        self.delivery = delivery
        self.connection = connection
    }

    /// Bytes written, or a negative libmicrohttpd code.
    func read(from position: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let endWithError = -2  // MHD_CONTENT_READER_END_WITH_ERROR: close the connection mid-body
        var end = bytes.count
        switch delivery {
        case .whole:
            break
        case .truncated:
            end = bytes.count / 2
        case .trickled(let millisecondsPerByte):
            end = min(bytes.count, position + 1)
            if !pause(milliseconds: millisecondsPerByte) { return endWithError }
        }
        guard position >= 0, position < end else { return endWithError }
        let count = min(buffer.count, end - position)
        bytes[position..<position + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
        return count
    }

    /// Sleeps in short steps; false once nobody is left to read.
    private func pause(milliseconds: Int) -> Bool {
        var left = milliseconds
        while left > 0 {
            if connection?.isAbandoned ?? false { return false }
            let step = min(left, 20)
            usleep(useconds_t(step * 1000))
            left -= step
        }
        return !(connection?.isAbandoned ?? false)
    }
}

// MARK: - C callbacks (no captures: context travels through the `cls` pointers)

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, context in
    guard let cls, let connection, let url, let method, let uploadSize, let context else { return .NO }
    return Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().access(
        connection, method: String(cString: method), path: String(cString: url), upload: upload,
        uploadSize: uploadSize, context: context)
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, context, _ in
    guard let pending = context?.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pending).release()
    context?.pointee = nil
}

private let connectionNotified: MHD_NotifyConnectionCallback = { cls, _, socketContext, code in
    guard let cls, let socketContext else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        .connection(started: code == .CONNECTION_NOTIFY_STARTED, context: socketContext)
}

private let collectQueryArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<QueryCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

private let readStreamedBody: MHD_ContentReaderCallback = { cls, position, buffer, max in
    guard let cls, let buffer else { return -2 }
    return Unmanaged<StreamedBody>.fromOpaque(cls).takeUnretainedValue()
        .read(from: Int(clamping: position), into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

private let releaseStreamedBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamedBody>.fromOpaque(cls).release()
}
