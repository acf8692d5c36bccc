extension Transaction {
    /// The body of `POST /api/chats/process`, `/api/transactions/process` or `/api/states/store`
    /// (docs/protocol.md §3.1): `{"transaction": {…}}` with exactly the fields the node reads,
    /// integers as integers.
    public func submissionBody() throws -> [UInt8] {
        try JSONCoding.encode(["transaction": Submitted(self)])
    }

    /// The endpoint a node expects this type on.
    public var submissionPath: String {
        switch type {
        case .chat: "/api/chats/process"
        case .state: "/api/states/store"
        default: "/api/transactions/process"
        }
    }
}

private struct Submitted: Encodable {
    let transaction: Transaction
    init(_ transaction: Transaction) { self.transaction = transaction }

    private enum Keys: String, CodingKey {
        case type, amount, senderId, senderPublicKey, recipientId, timestamp, timestampMs, asset, signature
    }
    private enum AssetKeys: String, CodingKey { case chat, state }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(transaction.type, forKey: .type)
        try c.encode(transaction.amount, forKey: .amount)
        try c.encode(transaction.senderId ?? transaction.senderPublicKey.address, forKey: .senderId)
        try c.encode(transaction.senderPublicKey, forKey: .senderPublicKey)
        try c.encodeIfPresent(transaction.recipientId, forKey: .recipientId)
        try c.encode(transaction.timestamp, forKey: .timestamp)
        try c.encodeIfPresent(transaction.timestampMs, forKey: .timestampMs)
        var asset = c.nestedContainer(keyedBy: AssetKeys.self, forKey: .asset)
        try asset.encodeIfPresent(transaction.chat, forKey: .chat)
        try asset.encodeIfPresent(transaction.state, forKey: .state)
        try c.encode(Hex.encode(transaction.signature), forKey: .signature)
    }
}
