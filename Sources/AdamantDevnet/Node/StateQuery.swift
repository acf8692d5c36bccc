import AdamantCore

/// `GET|POST /api/states/get` (`modules/states.js`, `schema/states.js`): confirmed type 9
/// transactions, newest first only when asked (`orderBy=timestamp:desc`), at most 100 a page.
/// Parameters pass the schema first, `and:`/`or:` prefixes stripped, with z-schema's bare
/// texts; the list itself filters on the bare names only and prefixes its errors.
struct StateQuery {
    static let errorPrefix = "Failed to get transactions: "

    let stateType: Int64?
    let key: String?
    let keys: Set<String>?
    let sender: Address?
    let senders: Set<Address>?
    let fromHeight: Int64?
    let order: ListOrder?
    let page: ListPage

    init(_ request: HTTPRequest) throws(Rejection) {
        for (name, value) in request.query { try Self.checkSchema(Self.bare(name), value) }
        stateType = try request.integer("type")
        key = request.parameter("key").flatMap { $0.isEmpty ? nil : $0 }
        keys = request.parameter("keyIds").map {
            Set($0.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        }
        sender = try request.parameter("senderId").map { text throws(Rejection) in try Self.address(text) }
        senders = try request.parameter("senderIds").map { text throws(Rejection) in
            var addresses = Set<Address>()
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                addresses.insert(try Self.address(String(part)))
            }
            return addresses
        }
        fromHeight = try request.integer("fromHeight")
        page = try ListPage(request, maxLimit: 100, errorPrefix: Self.errorPrefix)
        order = try ListOrder(
            request.parameter("orderBy"), fields: ["type", "timestamp"], errorPrefix: Self.errorPrefix)
    }

    func run(on ledger: Ledger, profile: NodeProfile) -> (transactions: [JSONValue], count: Int) {
        TransactionListing(order: order, page: page, includeUnconfirmed: false).run(
            on: ledger, profile: profile, confirmed: admits, pooled: { _ in false },
            render: { $0.chatListed($1) },
            sortKey: { field, transaction in
                .number(field == "type" ? Int64(transaction.type.rawValue) : Int64(transaction.timestamp))
            })
    }

    private func admits(_ transaction: Transaction) -> Bool {
        guard transaction.type == .state, let state = transaction.state else { return false }
        if let stateType, Int64(state.type) != stateType { return false }
        if let key, state.key != key { return false }
        if let keys, !keys.contains(state.key) { return false }
        if let sender, transaction.senderId != sender { return false }
        if let senders, let owner = transaction.senderId, !senders.contains(owner) { return false }
        if let fromHeight, (transaction.height ?? .min) <= fromHeight { return false }
        return true
    }

    // MARK: The endpoint schema

    private static func bare(_ name: String) -> String {
        for prefix in ["and:", "or:"] where name.lowercased().hasPrefix(prefix) {
            return String(name.dropFirst(prefix.count))
        }
        return name
    }

    private static let integerBounds: [String: ClosedRange<Int64>] = [
        "type": 0...10, "fromHeight": 1...Int64.max, "toHeight": 1...Int64.max, "fromTimestamp": 0...Int64.max,
        "toTimestamp": 1...Int64.max, "minConfirmations": 0...Int64.max, "limit": 1...1000, "offset": 0...Int64.max,
        "fromUnixTime": AdamantTime.epochUnixMillis / 1000...Int64.max,
        "toUnixTime": AdamantTime.epochUnixMillis / 1000 + 1...Int64.max,
    ]

    private static func checkSchema(_ name: String, _ value: String) throws(Rejection) {
        if let bounds = integerBounds[name] {
            _ = try HTTPRequest.integer(
                value, minimum: bounds.lowerBound, maximum: bounds.upperBound == .max ? nil : bounds.upperBound)
            return
        }
        let items = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        switch name {
        case "senderId", "ownerAddress": _ = try address(value)
        case "senderIds": for item in items { _ = try address(item) }
        case "senderPublicKey", "ownerPublicKey": try publicKey(value)
        case "senderPublicKeys": for item in items { try publicKey(item) }
        case "blockId":
            guard TransactionID(value) != nil else {
                throw Rejection("Object didn't pass validation for format id: \(value)")
            }
        default: break
        }
    }

    private static func address(_ text: String) throws(Rejection) -> Address {
        guard let address = try? Address(text) else {
            throw Rejection("Object didn't pass validation for format address: \(text)")
        }
        return address
    }

    private static func publicKey(_ text: String) throws(Rejection) {
        guard (try? PublicKey(hex: text)) != nil else {
            throw Rejection("Object didn't pass validation for format publicKey: \(text)")
        }
    }

    /// A POST body's filters as query parameters: arrays joined by commas, as the node's
    /// handler splits them again.
    static func parameters(inBody body: [UInt8]) throws(Rejection) -> [(name: String, value: String)] {
        guard !body.isEmpty else { return [] }
        guard let parsed = try? JSONValue.parse(body), case .object(let members) = parsed else {
            throw Rejection(
                "Expected type object but found type \((try? JSONValue.parse(body))?.schemaType ?? "string")")
        }
        var parameters: [(name: String, value: String)] = []
        for (name, value) in members {
            switch value {
            case .null: continue
            case .string(let text): parameters.append((name, text))
            case .number: parameters.append((name, value.javaScriptNumber))
            case .bool, .object: parameters.append((name, value.text))
            case .array(let elements):
                parameters.append((name, elements.map { $0.string ?? $0.text }.joined(separator: ",")))
            }
        }
        return parameters
    }
}
