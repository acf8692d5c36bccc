import AdamantCore

/// The GET handlers of one node: each returns the object whose members follow `success` and
/// `nodeTimestamp` in the envelope, or throws the node's error text.
struct NodeEndpoints {
    typealias Members = [(key: String, value: JSONValue)]

    let profile: NodeProfile
    let nowUnixMillis: Int64
    let ledger: Ledger

    /// The first two path components the node's API router owns.
    static let sections: Set<String> = [
        "api/accounts", "api/blocks", "api/chats", "api/chatrooms", "api/delegates", "api/loader", "api/node",
        "api/peers", "api/states", "api/transactions",
    ]

    /// nil when the path is no endpoint.
    func handler(for path: String) -> ((HTTPRequest) throws(Rejection) -> JSONValue)? {
        switch path {
        case "/api/node/status": status
        case "/api/blocks/getHeight": { _ in ["height": .integer(visibleHeight)] }
        case "/api/peers/version": { _ in versionObject }
        case "/api/loader/status": { _ in ["loaded": true, "now": .integer(visibleHeight), "blocksCount": 0] }
        case "/api/accounts/getPublicKey": publicKey
        case "/api/accounts": account
        case "/api/accounts/getBalance": balance
        case "/api/transactions/get": confirmedTransaction
        case "/api/transactions/unconfirmed/get":
            { request throws(Rejection) in try pooledTransaction(request, in: ledger.unconfirmed) }
        case "/api/transactions/queued/get":
            { request throws(Rejection) in try pooledTransaction(request, in: ledger.queued) }
        case "/api/transactions/unconfirmed": { pooledList($0, ledger.unconfirmed) }
        case "/api/transactions/queued": { pooledList($0, ledger.queued) }
        case "/api/transactions/count": { _ in counts }
        case "/api/transactions": transactions
        case "/api/chats/get": chats
        case "/api/states/get": states
        default: nil
        }
    }

    private var visibleHeight: Int64 { profile.visibleHeight(of: ledger) }
    private var render: TransactionJSON { TransactionJSON(profile: profile, ledger: ledger) }

    // MARK: Node

    /// The 0.10.3 shape, trimmed to what older versions had (docs/node-api.md §1.6).
    private func status(_ request: HTTPRequest) -> JSONValue {
        let version = profile.version
        let visibleBlock = ledger.blocks[Int(visibleHeight) - 1]
        var network: Members = [
            ("broadhash", .string(Hex.encode(Digest.sha256(Array(visibleBlock.id.utf8))))),
            ("epoch", "2017-09-02T17:00:00.000Z"),
            ("height", .integer(visibleHeight)),
        ]
        if version >= NodeVersion(0, 10, 2) { network.append(("consensusCodeName", "devnet")) }
        network += [
            ("fee", .integer(Fee.transfer)), ("milestone", 0), ("nethash", .string(profile.nethash)), ("reward", 0),
            ("supply", .integer(ADMAmount.totalSupply.units)),
        ]
        var members: Members = []
        if version >= NodeVersion(0, 9, 0) {
            members.append(
                (
                    "loader",
                    [
                        "loaded": true, "now": .integer(visibleHeight), "syncing": false, "consensus": 100, "blocks": 0,
                        "blocksCount": 0,
                    ]
                ))
        }
        members.append(("network", .object(network)))
        if version >= NodeVersion(0, 10, 2) {
            members.append(("consensusSchedule", ["activationHeights": [:]]))
            members.append(("milestoneSchedule", ["offset": 2_000_000, "distance": 6_300_000, "milestones": []]))
        }
        members.append(("version", versionObject))
        if version >= NodeVersion(0, 10, 0) {
            members.append(("nodeTimestampMs", .integer(AdamantTime.epochMillis(unixMillis: nowUnixMillis))))
            members.append(("unixTimestampMs", .integer(nowUnixMillis)))
        }
        members.append(
            (
                "wsClient",
                profile.socketPort.map { ["enabled": true, "port": .integer(Int64($0))] } ?? ["enabled": false]
            ))
        return .object(members)
    }

    private var versionObject: JSONValue {
        [
            "build": "", "commit": "de7e1e7000000000000000000000000000000000",
            "version": .string(profile.version.description),
        ]
    }

    // MARK: Accounts

    private func publicKey(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let address = try requiredAddress(request)
        guard let key = ledger.account(address)?.publicKey else { throw Rejection("Account not found") }
        return ["publicKey": .string(key.hex)]
    }

    private func account(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let key = try request.parameter("publicKey").map { text throws(Rejection) in
            guard let key = try? PublicKey(hex: text) else {
                throw Rejection("Object didn't pass validation for format publicKey: \(text)")
            }
            return key
        }
        let named = try request.parameter("address").map { _ throws(Rejection) in try requiredAddress(request) }
        guard let address = named ?? key?.address else {
            throw Rejection("Missing required property: address or publicKey")
        }
        if let key, key.address != address { throw Rejection("Account publicKey does not match address") }
        guard let account = ledger.account(address) else { throw Rejection("Account not found") }
        return [
            "account": [
                "address": .string(address.description),
                "unconfirmedBalance": .string(String(account.unconfirmedBalance)),
                "balance": .string(String(account.balance)),
                "publicKey": account.publicKey.map { .string($0.hex) } ?? .null,
                "unconfirmedSignature": 0, "secondSignature": 0, "secondPublicKey": nil,
                "multisignatures": [], "u_multisignatures": [],
            ]
        ]
    }

    /// An unknown address has a zero balance: success, not an error.
    private func balance(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let account = ledger.account(try requiredAddress(request))
        return [
            "balance": .string(String(account?.balance ?? 0)),
            "unconfirmedBalance": .string(String(account?.unconfirmedBalance ?? 0)),
        ]
    }

    private func requiredAddress(_ request: HTTPRequest) throws(Rejection) -> Address {
        guard let text = request.parameter("address") else { throw Rejection("Missing required property: address") }
        guard let address = try? Address(text) else {
            throw Rejection("Object didn't pass validation for format address: \(text)")
        }
        return address
    }

    // MARK: Transactions

    private func confirmedTransaction(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let id = try requiredID(request)
        guard let transaction = ledger.confirmed(id), transaction.height! <= visibleHeight else {
            throw Rejection("Transaction not found")
        }
        return ["transaction": render.confirmed(transaction, includeAsset: request.flag("returnAsset") == true)]
    }

    private func pooledTransaction(_ request: HTTPRequest, in pool: [Ledger.Pooled]) throws(Rejection) -> JSONValue {
        let id = try requiredID(request)
        guard let entry = pool.first(where: { $0.transaction.id == id }) else {
            throw Rejection("Transaction not found")
        }
        return ["transaction": render.pooled(entry)]
    }

    /// Filtered by sender key OR recipient address; `count` is the whole list's size.
    private func pooledList(_ request: HTTPRequest, _ pool: [Ledger.Pooled]) -> JSONValue {
        let key = request.parameter("senderPublicKey")
        let address = request.parameter("address")
        let listed =
            key == nil && address == nil
            ? pool
            : pool.filter {
                $0.transaction.senderPublicKey.hex == key || $0.transaction.recipientId?.description == address
            }
        return ["transactions": .array(listed.map(render.pooled)), "count": .integer(Int64(pool.count))]
    }

    private var counts: JSONValue {
        [
            "confirmed": .integer(Int64(ledger.chain.count { $0.height! <= visibleHeight })), "multisignature": 0,
            "unconfirmed": .integer(Int64(ledger.unconfirmed.count)), "queued": .integer(Int64(ledger.queued.count)),
        ]
    }

    private func transactions(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let query = try TransactionQuery(request, version: profile.version, ledger: ledger)
        let (transactions, count) = query.run(on: ledger, profile: profile)
        return ["transactions": .array(transactions), "count": .integer(Int64(count))]
    }

    private func chats(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let query = try ChatQuery(request, version: profile.version)
        let (transactions, count) = query.run(on: ledger, profile: profile)
        return ["transactions": .array(transactions), "count": .integer(Int64(count))]
    }

    /// `/api/states/get` (GET, and POST with the filters in the body).
    func states(_ request: HTTPRequest) throws(Rejection) -> JSONValue {
        let query = try StateQuery(request)
        let (transactions, count) = query.run(on: ledger, profile: profile)
        return ["transactions": .array(transactions), "count": .integer(Int64(count))]
    }

    private func requiredID(_ request: HTTPRequest) throws(Rejection) -> TransactionID {
        guard let text = request.parameter("id") else { throw Rejection("Missing required property: id") }
        guard let id = TransactionID(text) else {
            throw Rejection("Object didn't pass validation for format id: \(text)")
        }
        return id
    }
}
