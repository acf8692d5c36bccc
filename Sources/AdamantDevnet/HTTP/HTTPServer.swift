// The only file that touches libmicrohttpd.
import CMicroHTTPD
import Synchronization

/// A libmicrohttpd daemon on 127.0.0.1 with one thread per connection, so a handler may block
/// (a delayed, stalled or trickled reply) without holding up any other client. Keep-alive and
/// HTTP/1.1 framing are the library's.
final class HTTPServer: Sendable {
    /// Runs on the connection's thread; it gets the server to notice when to let a held connection go.
    typealias Handler = @Sendable (HTTPRequest, HTTPServer) -> HTTPReply

    enum StartError: Error, CustomStringConvertible {
        case cannotBind(port: UInt16)
        var description: String {
            switch self {
            case .cannotBind(let port): "cannot listen on 127.0.0.1:\(port)"
            }
        }
    }

    /// Bodies above this get the node's body-parser error.
    static let maxBodyBytes = 2 * 1024 * 1024

    private let handler: Handler
    /// The daemon, confined behind the lock: `OpaquePointer` is not Sendable.
    private let daemon = Mutex<OpaquePointer?>(nil)
    private let stopping = Atomic<Bool>(false)

    init(handler: @escaping Handler) { self.handler = handler }

    deinit { stop() }

    /// True while `stop()` runs: handlers that are holding a connection open let go.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    var isRunning: Bool { daemon.withLock { $0 != nil } }

    /// Listens on `port` (0 for any free one) and returns the port bound.
    func start(port: UInt16 = 0) throws(StartError) -> UInt16 {
        try daemon.withLock { daemon throws(StartError) in
            precondition(daemon == nil, "the server is already running")
            let context = Unmanaged.passUnretained(self).toOpaque()
            guard let started = adm_mhd_start_loopback(port, accessHandler, context, requestCompleted, nil) else {
                throw .cannotBind(port: port)
            }
            daemon = started
            return adm_mhd_bound_port(started)
        }
    }

    /// Closes the port and waits for every connection thread to finish.
    func stop() {
        guard let running = daemon.withLock({ daemon in defer { daemon = nil }; return daemon }) else { return }
        stopping.store(true, ordering: .relaxed)
        MHD_stop_daemon(running)
        stopping.store(false, ordering: .relaxed)
    }

    // MARK: Called on connection threads

    fileprivate func access(
        _ connection: OpaquePointer, method: String, path: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // First call: headers only. Then body chunks, then a last call with nothing left.
        guard let pending = context.pointee else {
            context.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
            return .YES
        }
        let request = Unmanaged<PendingRequest>.fromOpaque(pending).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, request.body.count + uploadSize.pointee <= Self.maxBodyBytes {
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
        switch handler(parsed, self) {
        case .respond(let response): return queue(response, on: connection)
        case .hangUp: return .NO
        }
    }

    private static func query(of connection: OpaquePointer) -> [(name: String, value: String)] {
        let collector = QueryCollector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values(
                connection, .GET_ARGUMENT_KIND, collectQueryArgument, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let size = response.body.count
        let mhdResponse: OpaquePointer?
        switch response.delivery {
        case .whole:
            mhdResponse = response.body.withUnsafeBytes {
                MHD_create_response_from_buffer(size, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .truncated, .trickled:
            let stream = StreamedBody(bytes: response.body, delivery: response.delivery, server: self)
            mhdResponse = MHD_create_response_from_callback(
                UInt64(size), 1024, readStreamedBody, Unmanaged.passRetained(stream).toOpaque(), releaseStreamedBody)
        }
        guard let mhdResponse else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        _ = MHD_add_response_header(mhdResponse, "Content-Type", response.contentType)
        _ = MHD_add_response_header(mhdResponse, "Access-Control-Allow-Origin", "*")
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }
}

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
    unowned let server: HTTPServer

    init(bytes: [UInt8], delivery: HTTPResponse.Delivery, server: HTTPServer) {
        self.bytes = bytes
        self.delivery = delivery
        self.server = server
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
        guard position < end else { return endWithError }
        let count = min(buffer.count, end - position)
        bytes[position..<position + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
        return count
    }

    /// Sleeps in short steps; false when the server stops meanwhile.
    private func pause(milliseconds: Int) -> Bool {
        var left = milliseconds
        while left > 0 {
            if server.isStopping { return false }
            let step = min(left, 20)
            usleep(useconds_t(step * 1000))
            left -= step
        }
        return !server.isStopping
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

private let collectQueryArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<QueryCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

private let readStreamedBody: MHD_ContentReaderCallback = { cls, position, buffer, max in
    guard let cls, let buffer else { return -2 }
    return Unmanaged<StreamedBody>.fromOpaque(cls).takeUnretainedValue()
        .read(from: Int(position), into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

private let releaseStreamedBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamedBody>.fromOpaque(cls).release()
}
