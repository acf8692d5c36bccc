public import AdamantCore

/// Filters for `/api/chats/get`. Only bare parameter names work there (`and:`-prefixed ones
/// are silently ignored), and sender and recipient share one SQL placeholder, so a query
/// names at most one party (docs/node-api.md §1.5).
public struct ChatQuery: Sendable, Hashable {
    /// The one party a query can name.
    public enum Party: Sendable, Hashable {
        /// Sent by this address (`senderId`).
        case sender(Address)
        /// Sent to this address (`recipientId`).
        case recipient(Address)
        /// Sender or recipient (`isIn`).
        case either(Address)
    }

    /// Whose chats; nil lists everyone's.
    public var party: Party?
    /// The chat asset type; nil returns every type except signals (the node's default).
    public var chatType: ChatType?
    /// Only transactions in blocks strictly above this height.
    public var afterHeight: Int64?
    /// At most 100 (the node's cap); larger values are lowered to 100.
    public var limit: Int
    /// Rows to skip, for paging.
    public var offset: Int
    /// By timestamp, oldest or newest first.
    public var order: ListOrder
    /// Also return type 0 transfers (0.10+ nodes only).
    public var includeDirectTransfers: Bool

    /// A query with every filter off but those given: the first 100 rows, oldest first.
    public init(
        party: Party? = nil, chatType: ChatType? = nil, afterHeight: Int64? = nil, limit: Int = 100, offset: Int = 0,
        order: ListOrder = .oldestFirst, includeDirectTransfers: Bool = false
    ) {
        self.party = party
        self.chatType = chatType
        self.afterHeight = afterHeight
        self.limit = limit
        self.offset = offset
        self.order = order
        self.includeDirectTransfers = includeDirectTransfers
    }

    var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        switch party {
        case .sender(let address)?: items.append(("senderId", address.description))
        case .recipient(let address)?: items.append(("recipientId", address.description))
        case .either(let address)?: items.append(("isIn", address.description))
        case nil: break
        }
        if let chatType { items.append(("type", String(chatType.rawValue))) }
        if let afterHeight { items.append(("fromHeight", String(afterHeight))) }
        items.append(("limit", String(min(max(limit, 1), 100))))
        if offset > 0 { items.append(("offset", String(offset))) }
        items.append(("orderBy", order.orderBy))
        if includeDirectTransfers { items.append(("includeDirectTransfers", "1")) }
        return items
    }
}
