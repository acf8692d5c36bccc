import AdamantCore

/// The JSON object `adm-fetch --json` prints for a fetch: the verified transaction's fields
/// (absent when there is none), the notification, and on failure `fallback` and `reason`.
extension FetchResult: Encodable {
    private enum Keys: String, CodingKey {
        case id, type, chatType, senderId, recipientId, amount, timestamp, height, confirmations, verified
        case kind, title, body, shown, thread, text, duplicate, fallback, reason
    }

    /// Writes the object: the id always, the transaction's fields only for a verified one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id.description, forKey: .id)
        try container.encodeIfPresent(transaction?.type.rawValue, forKey: .type)
        try container.encodeIfPresent(transaction?.chat?.type.rawValue, forKey: .chatType)
        try container.encodeIfPresent(transaction?.senderPublicKey.address.description, forKey: .senderId)
        try container.encodeIfPresent(transaction?.recipientId?.description, forKey: .recipientId)
        try container.encodeIfPresent(transaction?.amount, forKey: .amount)
        try container.encodeIfPresent(transaction?.timestamp, forKey: .timestamp)
        try container.encodeIfPresent(transaction?.height, forKey: .height)
        try container.encodeIfPresent(transaction?.confirmations, forKey: .confirmations)
        try container.encode(transaction != nil, forKey: .verified)
        try container.encode(notification.kind.rawValue, forKey: .kind)
        try container.encode(notification.title, forKey: .title)
        try container.encode(notification.body, forKey: .body)
        try container.encode(notification.shown && failure == nil, forKey: .shown)
        try container.encodeIfPresent(thread?.description, forKey: .thread)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encode(duplicate, forKey: .duplicate)
        try container.encode(failure != nil, forKey: .fallback)
        try container.encodeIfPresent(failure?.description, forKey: .reason)
    }
}

/// `adm-fetch watch --json`'s object: the fetch's, with how the watch found the transaction
/// (`via`), whether a block held it (`confirmed`) and the account it is for.
extension WatchNotification: Encodable {
    private enum Keys: String, CodingKey { case via, confirmed, account }

    /// Writes the fetch's object, then `via`, `confirmed` and `account` beside its fields.
    public func encode(to encoder: any Encoder) throws {
        try result.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(via.rawValue, forKey: .via)
        try container.encode(confirmed, forKey: .confirmed)
        try container.encode(account.description, forKey: .account)
    }
}
