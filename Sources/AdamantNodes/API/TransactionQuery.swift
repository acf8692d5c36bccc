public import AdamantCore

/// Filters for `/api/transactions`, all combined with AND (each sent with the `and:` prefix;
/// the node joins unprefixed filters with OR). Assets are always returned, so chat
/// transactions can be verified.
public struct TransactionQuery: Sendable, Hashable {
    /// Any of these types; empty means every type.
    public var types: [TransactionType]
    /// Sent by this address.
    public var sender: Address?
    /// Sent to this address.
    public var recipient: Address?
    /// Heights at or above this (inclusive, unlike `ChatQuery.afterHeight`).
    public var fromHeight: Int64?
    /// Heights at or below this.
    public var toHeight: Int64?
    /// At most 1000 (the node's cap); larger values are lowered to 1000.
    public var limit: Int
    /// Rows to skip, for paging.
    public var offset: Int
    /// By timestamp, oldest or newest first.
    public var order: ListOrder

    /// A query with every filter off but those given: the first 100 rows, oldest first.
    public init(
        types: [TransactionType] = [], sender: Address? = nil, recipient: Address? = nil, fromHeight: Int64? = nil,
        toHeight: Int64? = nil, limit: Int = 100, offset: Int = 0, order: ListOrder = .oldestFirst
    ) {
        self.types = types
        self.sender = sender
        self.recipient = recipient
        self.fromHeight = fromHeight
        self.toHeight = toHeight
        self.limit = limit
        self.offset = offset
        self.order = order
    }

    var queryItems: [(name: String, value: String)] {
        var filters: [(name: String, value: String)] = []
        switch types.count {
        case 0: break
        case 1: filters.append(("type", types[0].description))
        default: filters.append(("types", types.map(\.description).joined(separator: ",")))
        }
        if let sender { filters.append(("senderId", sender.description)) }
        if let recipient { filters.append(("recipientId", recipient.description)) }
        if let fromHeight { filters.append(("fromHeight", String(fromHeight))) }
        if let toHeight { filters.append(("toHeight", String(toHeight))) }

        var items = filters.map { (name: "and:" + $0.name, value: $0.value) }
        items.append(("limit", String(min(max(limit, 1), 1000))))
        if offset > 0 { items.append(("offset", String(offset))) }
        items.append(("orderBy", order.orderBy))
        items.append(("returnAsset", "1"))
        return items
    }
}
