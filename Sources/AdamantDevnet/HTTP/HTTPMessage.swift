import AdamantCore

/// A request as the server hands it over: the query in its original order (the `and:` join of
/// `/api/transactions` depends on it), the body complete.
struct HTTPRequest: Sendable {
    let method: String
    let path: String
    let query: [(name: String, value: String)]
    let body: [UInt8]

    init(method: String, path: String, query: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
    }

    func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

struct HTTPResponse: Sendable {
    /// How the body goes out on the wire; anything but `whole` is a fault.
    enum Delivery: Sendable, Equatable {
        case whole
        /// The full Content-Length announced, half the body sent, then the connection closed.
        case truncated
        /// One byte at a time with a pause between them.
        case trickled(millisecondsPerByte: Int)
    }

    var status: Int
    var contentType: String
    var body: [UInt8]
    var delivery: Delivery = .whole

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: value.bytes)
    }

    static func text(_ text: String, status: Int, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }
}

/// What a handler decides for a request.
enum HTTPReply: Sendable {
    case respond(HTTPResponse)
    /// Close the connection without a word (a request that was never going to be answered).
    case hangUp
}
