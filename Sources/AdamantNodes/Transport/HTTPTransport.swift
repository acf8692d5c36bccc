/// Moves one HTTP exchange. The pool and the request policy see nodes only through this, so
/// tests can script every fault without sockets.
public protocol HTTPTransport: Sendable {
    /// The node's answer, whatever its status, or a `TransportError` when no HTTP answer came.
    /// Throws `.cancelled` promptly when the calling task is cancelled.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer
}

public struct HTTPRequest: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case get = "GET"
        case post = "POST"
    }

    public var method: Method
    /// An absolute `http` or `https` URL.
    public var url: String
    /// A JSON body, POST only.
    public var body: [UInt8]?
    /// The whole exchange, from connecting to the last byte.
    public var timeout: Duration
    public var connectTimeout: Duration

    public init(method: Method = .get, url: String, body: [UInt8]? = nil, timeout: Duration, connectTimeout: Duration) {
        self.method = method
        self.url = url
        self.body = body
        self.timeout = timeout
        self.connectTimeout = min(connectTimeout, timeout)
    }
}

/// An HTTP answer of any status: the node (or something in front of it) answered.
public struct HTTPAnswer: Sendable, Hashable {
    public var status: Int
    public var contentType: String?
    public var body: [UInt8]
    /// How long the exchange took once it was on the wire (time queued for a connection slot
    /// left out), when the transport measured it: the node's latency.
    public var wireTime: Duration?

    public init(status: Int, contentType: String? = "application/json", body: [UInt8], wireTime: Duration? = nil) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.wireTime = wireTime
    }
}

/// No HTTP answer: a request that failed this way may be repeated elsewhere, even a POST.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request could not be formed: a malformed URL or an unsupported scheme.
    case invalidRequest(String)
    /// DNS, connection or TLS failure.
    case unreachable(String)
    case timedOut
    /// The answer grew past the transport's cap and was cut off.
    case responseTooLarge(limit: Int)
    case cancelled
    /// The peer sent something that is not a whole HTTP answer: not HTTP at all, nothing,
    /// or an answer cut short.
    case brokenAnswer(String)
    /// The connection broke mid-exchange, or anything else the transport reports.
    case failed(String)

    public var description: String {
        switch self {
        case .invalidRequest(let detail): "invalid request: \(detail)"
        case .unreachable(let detail): "unreachable: \(detail)"
        case .timedOut: "timed out"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes, cut off"
        case .cancelled: "cancelled"
        case .brokenAnswer(let detail): "broken HTTP answer: \(detail)"
        case .failed(let detail): "transport failure: \(detail)"
        }
    }
}
