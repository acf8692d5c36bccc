import AdamantCore

/// `GET /api/chats/get` (docs/node-api.md §1.5): chat transactions, signals left out unless asked
/// for, `fromHeight` strictly greater, prefixed filters ignored, at most 100 a page.
struct ChatQuery {
    static let errorPrefix = "Failed to get transactions: "

    let chatType: ChatType?
    /// The node writes senderId, recipientId and isIn/inId into one SQL placeholder, so every
    /// address condition compares against the value written last.
    let sender: Address?, recipient: Address?, either: Address?
    let fromHeight: Int64?
    let includeTransfers: Bool
    let includeUnconfirmed: Bool
    let order: ListOrder?
    let page: ListPage

    init(_ request: HTTPRequest, version: NodeVersion) throws(Rejection) {
        let prefix = Self.errorPrefix
        if let type = try request.integer("type", errorPrefix: prefix) {
            guard let chatType = ChatType(rawValue: Int(type)) else {
                throw Rejection(
                    prefix
                        + (type < 0
                            ? "Value \(type) is less than minimum 0" : "Value \(type) is greater than maximum 3"))
            }
            self.chatType = chatType
        } else {
            chatType = nil
        }
        let senderValue = try Self.address(request, "senderId")
        let recipientValue = try Self.address(request, "recipientId")
        let isIn = try Self.address(request, "isIn")
        let inId = try Self.address(request, "inId")
        let eitherValue = isIn ?? inId
        let placeholder = eitherValue ?? recipientValue ?? senderValue
        sender = senderValue.flatMap { _ in placeholder }
        recipient = recipientValue.flatMap { _ in placeholder }
        either = eitherValue.flatMap { _ in placeholder }
        fromHeight = try request.integer("fromHeight", minimum: 1, errorPrefix: prefix)

        let hasMillisecondRules = version.timestampPolicy == .v0_10
        includeTransfers =
            hasMillisecondRules
            && (request.flag("withoutDirectTransfers").map(!) ?? request.flag("includeDirectTransfers") ?? false)
        includeUnconfirmed = hasMillisecondRules && request.flag("returnUnconfirmed") == true
        order = try ListOrder(request.parameter("orderBy"), fields: ["timestamp", "type"], errorPrefix: prefix)
        page = try ListPage(request, maxLimit: 100, errorPrefix: prefix)
    }

    /// The page and the count of all matches; `fromHeight` leaves the pool alone, as on the node.
    func run(on ledger: Ledger, profile: NodeProfile) -> (transactions: [JSONValue], count: Int) {
        TransactionListing(order: order, page: page, includeUnconfirmed: includeUnconfirmed).run(
            on: ledger, profile: profile,
            confirmed: { ($0.height ?? .min) > (fromHeight ?? .min) && admits($0) }, pooled: admits,
            render: { $0.chatListed($1) },
            sortKey: { field, transaction in
                .number(field == "type" ? Int64(transaction.type.rawValue) : Int64(transaction.timestamp))
            })
    }

    private func admits(_ transaction: Transaction) -> Bool {
        switch transaction.type {
        case .chat:
            guard let type = transaction.chat?.type else { return false }
            if let chatType, type != chatType { return false }
            if chatType == nil, type == .signal { return false }
        case .transfer:
            guard includeTransfers, chatType == nil else { return false }
        default:
            return false
        }
        if let sender, transaction.senderId != sender { return false }
        if let recipient, transaction.recipientId != recipient { return false }
        if let either, transaction.senderId != either, transaction.recipientId != either { return false }
        return true
    }

    private static func address(_ request: HTTPRequest, _ name: String) throws(Rejection) -> Address? {
        guard let text = request.parameter(name) else { return nil }
        guard let address = try? Address(text) else {
            throw Rejection("Object didn't pass validation for format address: \(text)")
        }
        return address
    }
}
