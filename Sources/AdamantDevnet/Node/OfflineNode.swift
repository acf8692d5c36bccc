package import AdamantCore

/// One simulated node over a ledger of its own, answering requests without sockets, timers or
/// threads: the devnet's request handling (body → admission) for a fuzz target or a test.
/// Answers are the ones a healthy devnet node gives over HTTP, body size limit included.
package struct OfflineNode: Sendable {
    package struct Response: Sendable, Equatable {
        package let status: Int
        package let contentType: String
        package let body: [UInt8]
    }

    /// 2027-03-04, a fixed "now" so the same bytes always get the same answer.
    package static let defaultNowUnixMillis = AdamantTime.epochUnixMillis + 300_000_000_123

    private var ledger: Ledger
    private let profile: NodeProfile
    private let nowUnixMillis: Int64

    package init(version: NodeVersion = .current, nowUnixMillis: Int64 = defaultNowUnixMillis) {
        ledger = Ledger(genesisUnixMillis: nowUnixMillis - 60_000)
        profile = NodeProfile(version: version, nethash: DevnetNethash.value)
        self.nowUnixMillis = nowUnixMillis
    }

    /// Gives `address` funds, so submissions signed by its key get past the balance check.
    /// - Throws: once the ledger would hold more than the total supply.
    package mutating func fund(_ address: Address, units: Int64) throws {
        try ledger.credit(address, units: units)
    }

    /// Moves the pool along and forges a block, as the devnet's timers do.
    package mutating func mine() {
        ledger.promote(nowUnixMillis: nowUnixMillis)
        ledger.forge(nowUnixMillis: nowUnixMillis)
    }

    /// The node's answer to one request; nil when the node would never answer it. `path` has no
    /// query string: the pairs come in `query`, decoded and in their order.
    package mutating func respond(
        method: String, path: String, query: [(name: String, value: String)] = [], body: [UInt8] = []
    ) -> Response? {
        guard body.count <= HTTPServer.maxBodyBytes else {
            return Response(NodeAPI.apiError("request entity too large"))
        }
        let request = HTTPRequest(method: method, path: path, query: query, body: body)
        switch NodeAPI(profile: profile, nowUnixMillis: nowUnixMillis).answer(request, ledger: &ledger).reply {
        case .respond(let response): return Response(response)
        case .never: return nil
        }
    }
}

extension OfflineNode.Response {
    fileprivate init(_ response: HTTPResponse) {
        self.init(status: response.status, contentType: response.contentType, body: response.body)
    }
}
