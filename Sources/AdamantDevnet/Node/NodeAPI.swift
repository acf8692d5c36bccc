import AdamantCore

/// One node's HTTP API over the shared ledger: its routes, its envelopes and the shapes of its
/// errors (docs/node-api.md §1). Pure: the caller passes the node's clock and holds the
/// ledger's lock.
struct NodeAPI {
    let profile: NodeProfile
    /// The node's clock, skew included.
    let nowUnixMillis: Int64

    struct Answer {
        enum Reply {
            case respond(HTTPResponse)
            case never
        }
        var reply: Reply
        /// Something worth a line in the devnet's log: a submission and its outcome.
        var event: String?
    }

    /// The node's second, as every handler reply carries it.
    var nodeTimestamp: Int64 { AdamantTime.timestamp(unixMillis: nowUnixMillis) }

    func answer(_ request: HTTPRequest, ledger: inout Ledger) -> Answer {
        switch (request.method, request.path) {
        case ("POST", "/api/chats/process"), ("POST", "/api/transactions/process"):
            return submit(request, ledger: &ledger)
        case ("POST", "/api/states/store"):
            return submit(request, ledger: &ledger, needsRecipient: false)
        case ("POST", "/api/transactions"):
            // 0.10 hands types 8 and 9 to their handlers; any other type reaches no branch and
            // the request is never answered.
            switch (try? JSONValue.parse(request.body))?["transaction"]?["type"]?.int64 {
            case 8?: return submit(request, ledger: &ledger)
            case 9?: return submit(request, ledger: &ledger, needsRecipient: false)
            default: return Answer(reply: .never, event: "POST /api/transactions with a type it never answers")
            }
        case ("POST", "/api/states/get"):
            // The router maps POST /get to the same handler, with the filters in the JSON body.
            let endpoints = NodeEndpoints(profile: profile, nowUnixMillis: nowUnixMillis, ledger: ledger)
            return Answer(
                reply: .respond(
                    envelope { () throws(Rejection) in
                        try endpoints.states(
                            HTTPRequest(
                                method: "GET", path: request.path,
                                query: try StateQuery.parameters(inBody: request.body)))
                    }))
        case ("GET", "/api/loader/status/ping"):
            let fresh = nowUnixMillis - ledger.lastBlock.forgedAtUnixMillis < 20_000
            return Answer(reply: .respond(.json(["success": .bool(fresh)], status: fresh ? 200 : 503)))
        case ("GET", _):
            let endpoints = NodeEndpoints(profile: profile, nowUnixMillis: nowUnixMillis, ledger: ledger)
            guard let handler = endpoints.handler(for: request.path) else {
                return Answer(reply: .respond(notFound(request)))
            }
            return Answer(reply: .respond(envelope { () throws(Rejection) in try handler(request) }))
        default:
            return Answer(reply: .respond(notFound(request)))
        }
    }

    private func submit(_ request: HTTPRequest, ledger: inout Ledger, needsRecipient: Bool = true) -> Answer {
        let body: JSONValue
        do {
            body = request.body.isEmpty ? [:] : try JSONValue.parse(request.body)
        } catch {
            return Answer(reply: .respond(Self.apiError("Unexpected token in JSON")))
        }
        do {
            let transaction = try ledger.submit(
                body, version: profile.version, nowUnixMillis: nowUnixMillis,
                disposition: profile.dropsSubmissions ? .discard : .enqueue, needsRecipient: needsRecipient)
            let id = transaction.id!.description
            let event =
                "accepted \(id) (type \(transaction.type), from \(transaction.senderPublicKey.address))"
                + (profile.dropsSubmissions ? ", dropped by fault" : "")
            let response = success(["transactionId": .string(id)])
            return Answer(reply: profile.hangsAfterAccepting ? .never : .respond(response), event: event)
        } catch {
            return Answer(reply: .respond(failure(error)), event: "rejected: \(error.message)")
        }
    }

    // MARK: Envelopes

    /// `{"success":true,"nodeTimestamp":N,…}` or, for a handler error, the same with
    /// `success:false` and `error`, both HTTP 200.
    private func envelope(_ handler: () throws(Rejection) -> JSONValue) -> HTTPResponse {
        do { return success(try handler()) } catch { return failure(error) }
    }

    private func success(_ payload: JSONValue) -> HTTPResponse {
        .json(.object([("success", true), ("nodeTimestamp", .integer(nodeTimestamp))] + payload.members))
    }

    private func failure(_ rejection: Rejection) -> HTTPResponse {
        .json(["success": false, "nodeTimestamp": .integer(nodeTimestamp), "error": .string(rejection.message)])
    }

    // MARK: Middleware errors, without nodeTimestamp

    /// Under a known prefix the API router answers 500 (404 for multisignatures); elsewhere
    /// Express's own 404 page.
    private func notFound(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue = ["success": false, "error": "API endpoint not found"]
        if request.path.hasPrefix("/api/transactions/multisignatures") { return .json(body, status: 404) }
        let section = request.path.split(separator: "/", maxSplits: 2).prefix(2).joined(separator: "/")
        if NodeEndpoints.sections.contains(section) { return .json(body, status: 500) }
        return Self.expressNotFound(method: request.method, path: request.path)
    }

    static func apiError(_ message: String) -> HTTPResponse {
        .json(["success": false, "error": .string("API error: " + message)], status: 500)
    }

    static func expressNotFound(method: String, path: String) -> HTTPResponse {
        let page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Error</title>
            </head>
            <body>
            <pre>Cannot \(method) \(path)</pre>
            </body>
            </html>

            """
        return .text(page, status: 404, contentType: "text/html; charset=utf-8")
    }
}
