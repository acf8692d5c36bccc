/// Moves one HTTP exchange. The pool and the request policy see nodes only through this, so
/// tests can script every fault without sockets.
public protocol HTTPTransport: Sendable {
    /// The node's answer, whatever its status, or a `TransportError` when no HTTP answer came.
    /// Throws `.cancelled` promptly when the calling task is cancelled.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer
}

/// One HTTP exchange to make.
public struct HTTPRequest: Sendable, Hashable {
    /// The two methods the node API needs.
    public enum Method: String, Sendable, Hashable {
        /// Reads.
        case get = "GET"
        /// Submissions.
        case post = "POST"
    }

    /// GET or POST.
    public var method: Method
    /// An absolute `http` or `https` URL.
    public var url: String
    /// A JSON body, POST only.
    public var body: [UInt8]?
    /// The whole exchange, from connecting to the last byte.
    public var timeout: Duration
    /// For the connection alone; never longer than `timeout`.
    public var connectTimeout: Duration
    /// An answer larger than this is cut off as it arrives (`.responseTooLarge`); nil leaves
    /// it to the transport's own cap.
    public var maxResponseBytes: Int?
    /// Straight to the node, or through which proxy: libcurl is told either way, and never
    /// reads its proxy variables (`ResolvedRoute` has read them).
    public var hop: ProxyHop
    /// The SOCKS username sent to a SOCKS proxy: requests with different ones never share a
    /// connection, nor, through Tor, a circuit. Nil sends none.
    public var circuit: String?

    /// A request; `connectTimeout` is cut to `timeout` if longer.
    public init(
        method: Method = .get, url: String, body: [UInt8]? = nil, timeout: Duration, connectTimeout: Duration,
        maxResponseBytes: Int? = nil,
        hop: ProxyHop = .direct, circuit: String? = nil
    ) {
        self.method = method
        self.url = url
        self.body = body
        self.timeout = timeout
        self.connectTimeout = min(connectTimeout, timeout)
        self.maxResponseBytes = maxResponseBytes
        self.hop = hop
        self.circuit = circuit
    }
}

/// An HTTP answer of any status: the node (or something in front of it) answered.
public struct HTTPAnswer: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The `Content-Type` header, when there was one.
    public var contentType: String?
    /// The whole body, decompressed.
    public var body: [UInt8]
    /// How long the exchange took once it was on the wire (time queued for a connection slot
    /// left out), when the transport measured it: the node's latency.
    public var wireTime: Duration?
    /// When the whole answer had arrived, when the transport noted it. The task that asked may
    /// run again much later on a loaded device; what the answer says of the node's clock is
    /// as of this instant, not of that one.
    public var arrivedAt: ContinuousClock.Instant?

    /// An answer (for transports of one's own, and tests).
    public init(
        status: Int, contentType: String? = "application/json", body: [UInt8], wireTime: Duration? = nil,
        arrivedAt: ContinuousClock.Instant? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.wireTime = wireTime
        self.arrivedAt = arrivedAt
    }
}

/// No HTTP answer: a request that failed this way may be repeated elsewhere, even a POST.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request could not be formed: a malformed URL or an unsupported scheme.
    case invalidRequest(String)
    /// DNS, connection or TLS failure.
    case unreachable(String)
    /// `proxy` could not be reached, or failed to carry the request: nothing is known of the
    /// node. A proxy that says the node cannot be reached reports `unreachable`.
    case proxyFailed(proxy: String, reason: String)
    /// The request's timeout passed.
    case timedOut
    /// The answer grew past the transport's cap and was cut off.
    case responseTooLarge(limit: Int)
    /// The calling task was cancelled.
    case cancelled
    /// The peer sent something that is not a whole HTTP answer: not HTTP at all, nothing,
    /// or an answer cut short.
    case brokenAnswer(String)
    /// The connection broke mid-exchange, or anything else the transport reports.
    case failed(String)

    /// `proxyFailed`'s reason when nothing listens where the proxy should be.
    public static let proxyRefusal = "refused the connection"

    /// The failure in words.
    public var description: String {
        switch self {
        case .invalidRequest(let detail): "invalid request: \(detail)"
        case .unreachable(let detail): "unreachable: \(detail)"
        case .proxyFailed(let proxy, let reason): "proxy failure: \(proxy): \(reason)"
        case .timedOut: "timed out"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes, cut off"
        case .cancelled: "cancelled"
        case .brokenAnswer(let detail): "broken HTTP answer: \(detail)"
        case .failed(let detail): "transport failure: \(detail)"
        }
    }
}
