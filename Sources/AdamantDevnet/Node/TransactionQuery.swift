import AdamantCore

/// `GET /api/transactions` (docs/node-api.md §1.5): filters joined by OR unless prefixed `and:`
/// (the first filter's prefix is ignored, and AND binds tighter, as in the node's SQL),
/// `fromHeight` inclusive, unknown names refused.
struct TransactionQuery {
    static let errorPrefix = "Failed to get transactions: "
    private static let options: Set<String> = ["limit", "offset", "orderBy", "returnAsset", "returnUnconfirmed"]
    private static let sortFields: Set<String> = [
        "id", "blockId", "amount", "fee", "type", "timestamp", "senderPublicKey", "senderId", "recipientId",
        "confirmations", "height",
    ]

    typealias Predicate = (Transaction) -> Bool

    /// Disjunction of conjunctions; empty means every transaction.
    let groups: [[Predicate]]
    let order: ListOrder?
    let includeAsset: Bool
    let includeUnconfirmed: Bool
    let page: ListPage

    init(_ request: HTTPRequest, version: NodeVersion, ledger: Ledger) throws(Rejection) {
        let prefix = Self.errorPrefix
        var groups = [[Predicate]]()
        for (rawName, value) in request.query {
            let (joiner, name) = Self.split(rawName)
            if Self.options.contains(name) { continue }
            guard !value.isEmpty else { throw Rejection(prefix + "Value for parameter [\(name)] cannot be empty") }
            let predicate = try Self.filter(name, value, schemaChecked: rawName == name, ledger: ledger)
            if joiner == "and", !groups.isEmpty {
                groups[groups.count - 1].append(predicate)
            } else {
                groups.append([predicate])
            }
        }
        self.groups = groups
        order = try ListOrder(request.parameter("orderBy"), fields: Self.sortFields, errorPrefix: prefix)
        includeAsset = request.flag("returnAsset") == true
        includeUnconfirmed = version.timestampPolicy == .v0_10 && request.flag("returnUnconfirmed") == true
        page = try ListPage(request, maxLimit: 1000, errorPrefix: prefix)
    }

    func run(on ledger: Ledger, profile: NodeProfile) -> (transactions: [JSONValue], count: Int) {
        let admits = { (transaction: Transaction) in
            groups.isEmpty || groups.contains { $0.allSatisfy { $0(transaction) } }
        }
        return TransactionListing(order: order, page: page, includeUnconfirmed: includeUnconfirmed).run(
            on: ledger, profile: profile, confirmed: admits, pooled: admits,
            render: { [includeAsset] in $0.confirmed($1, includeAsset: includeAsset) },
            sortKey: { Self.sortKey($0, of: $1, ledger: ledger) })
    }

    /// `and:type` → ("and", "type"); a bare name joins by OR.
    private static func split(_ name: String) -> (joiner: String, name: String) {
        for joiner in ["and", "or"] where name.hasPrefix(joiner + ":") {
            return (joiner, String(name.dropFirst(joiner.count + 1)))
        }
        return ("or", name)
    }

    /// The node's list schema bounds its bare integer filters; prefixed names escape it.
    private static let schemaMinimums: [String: Int64] = [
        "type": 0, "fromHeight": 1, "toHeight": 1, "fromTimestamp": 0, "toTimestamp": 1,
        "fromUnixTime": AdamantTime.epochUnixMillis / 1000, "toUnixTime": AdamantTime.epochUnixMillis / 1000 + 1,
        "minAmount": 0, "maxAmount": 1, "minFee": 1, "maxFee": 1, "minConfirmations": 0,
    ]

    private static func filter(_ name: String, _ value: String, schemaChecked: Bool, ledger: Ledger) throws(Rejection)
        -> Predicate
    {
        let prefix = errorPrefix
        func integer() throws(Rejection) -> Int64 {
            guard schemaChecked else { return try HTTPRequest.integer(value, errorPrefix: prefix) }
            return try HTTPRequest.integer(
                value, minimum: schemaMinimums[name], maximum: name == "type" ? 10 : nil, errorPrefix: prefix)
        }
        /// Unix seconds as a timestamp, clamped first so the subtraction cannot overflow.
        func timestamp(fromUnix seconds: Int64) -> Int64 {
            OutsideTime.clamped(seconds) - AdamantTime.epochUnixMillis / 1000
        }
        func list() -> Set<String> { Set(value.split(separator: ",").map(String.init)) }
        let recipientKey = { (transaction: Transaction) in
            transaction.recipientId.flatMap { ledger.account($0)?.publicKey?.hex }
        }
        switch name {
        case "blockId": return { $0.blockId == value }
        case "type":
            let type = try integer()
            return { Int64($0.type.rawValue) == type }
        case "types":
            let types = list()
            return { types.contains(String($0.type.rawValue)) }
        case "senderId": return { $0.senderId?.description == value }
        case "senderIds":
            let ids = list()
            return { ids.contains($0.senderId?.description ?? "") }
        case "recipientId": return { $0.recipientId?.description == value }
        case "recipientIds":
            let ids = list()
            return { ids.contains($0.recipientId?.description ?? "") }
        case "senderPublicKey": return { $0.senderPublicKey.hex == value }
        case "senderPublicKeys":
            let keys = list()
            return { keys.contains($0.senderPublicKey.hex) }
        case "recipientPublicKey": return { recipientKey($0) == value }
        case "recipientPublicKeys":
            let keys = list()
            return { keys.contains(recipientKey($0) ?? "") }
        case "inId", "isIn": return { $0.senderId?.description == value || $0.recipientId?.description == value }
        case "fromHeight":
            let height = try integer()
            return { ($0.height ?? .max) >= height }
        case "toHeight":
            let height = try integer()
            return { ($0.height ?? .max) <= height }
        case "fromTimestamp":
            let time = try integer()
            return { Int64($0.timestamp) >= time }
        case "toTimestamp":
            let time = try integer()
            return { Int64($0.timestamp) <= time }
        case "fromUnixTime":
            let time = timestamp(fromUnix: try integer())
            return { Int64($0.timestamp) >= time }
        case "toUnixTime":
            let time = timestamp(fromUnix: try integer())
            return { Int64($0.timestamp) <= time }
        case "minAmount":
            let amount = try integer()
            return { $0.amount >= amount }
        case "maxAmount":
            let amount = try integer()
            return { $0.amount <= amount }
        case "minFee":
            let fee = try integer()
            return { ($0.fee ?? 0) >= fee }
        case "maxFee":
            let fee = try integer()
            return { ($0.fee ?? 0) <= fee }
        case "minConfirmations":
            let confirmations = try integer()
            return { ledger.height - ($0.height ?? ledger.height + 1) + 1 >= confirmations }
        default: throw Rejection(prefix + "Parameter is not supported: \(name)")
        }
    }

    private static func sortKey(_ field: String, of transaction: Transaction, ledger: Ledger) -> SortKey {
        switch field {
        case "id": .text(transaction.id?.description ?? "")
        case "blockId": .text(transaction.blockId ?? "")
        case "amount": .number(transaction.amount)
        case "fee": .number(transaction.fee ?? 0)
        case "type": .number(Int64(transaction.type.rawValue))
        case "senderPublicKey": .text(transaction.senderPublicKey.hex)
        case "senderId": .text(transaction.senderId?.description ?? "")
        case "recipientId": .text(transaction.recipientId?.description ?? "")
        case "confirmations": .number(-(transaction.height ?? .max))
        case "height": .number(transaction.height ?? .max)
        default: .number(Int64(transaction.timestamp))
        }
    }
}
