/// A transaction as signed by its sender, plus what a node reports about it.
///
/// The signed fields are typed and checked on decoding; everything a node merely reports
/// (`id`, `fee`, `height`, …) is kept as reported and never trusted: `verify()` recomputes
/// what matters from the signed bytes.
public struct Transaction: Sendable, Hashable {
    // MARK: Signed fields (docs/protocol.md §4.1)
    /// Transfer, chat or KVS value.
    public var type: TransactionType
    /// In 1e-8 ADM.
    public var amount: Int64
    /// The signer's key, which the signature is checked against.
    public var senderPublicKey: PublicKey
    /// The recipient; nil for KVS values, which have none.
    public var recipientId: Address?
    /// When it was signed, in ADAMANT seconds by the target node's clock.
    public var timestamp: Int32
    /// Type 8 only.
    public var chat: ChatAsset?
    /// Type 9 only.
    public var state: StateAsset?
    /// Multisignature only; signed when present and non-empty. Clients never set it.
    public var requesterPublicKey: [UInt8]?
    /// The Ed25519 signature of `signingHash()`, 64 bytes; empty until signed.
    public var signature: [UInt8]
    /// Second-passphrase accounts only; covered by the id.
    public var signSignature: [UInt8]?

    // MARK: Not signed
    /// The sender's address as claimed; `verify()` checks it against the key.
    public var senderId: Address?
    /// Milliseconds since the epoch (0.10+), within the same second as `timestamp`.
    public var timestampMs: Int64?

    // MARK: Reported by a node
    /// The id, as a node reported it or as signing computed it; `verify()` checks a reported one.
    public var id: TransactionID?
    /// The fee charged, in 1e-8 ADM.
    public var fee: Int64?
    /// The block it is in; nil while it is in a pool.
    public var height: Int64?
    /// The id of that block.
    public var blockId: String?
    /// When that block was forged, in ADAMANT seconds.
    public var blockTimestamp: Int64?
    /// How many blocks confirm it, as the node counted them.
    public var confirmations: Int64?
    /// The recipient's key, when the node reports it (a pool's rows do, a list of confirmed chats
    /// does not); unchecked.
    public var recipientPublicKey: PublicKey?

    /// An unsigned transaction; `sign(with:)` fills in the signature, id and fee. The factories
    /// (`transfer`, `chat`, `signal`, `state`) validate and sign in one step.
    public init(
        type: TransactionType, amount: Int64, senderPublicKey: PublicKey, recipientId: Address?,
        timestamp: Int32, chat: ChatAsset? = nil, state: StateAsset? = nil, signature: [UInt8] = [],
        timestampMs: Int64? = nil
    ) {
        self.init(
            type: type, amount: amount, senderPublicKey: senderPublicKey, claimedSenderId: senderPublicKey.address,
            recipientId: recipientId,
            timestamp: timestamp, chat: chat, state: state, signature: signature, timestampMs: timestampMs)
    }

    /// The same with the sender's address as a node claims it, for a transaction read from an
    /// answer: deriving it from the key would cost a SHA-256 only to be overwritten.
    init(
        type: TransactionType, amount: Int64, senderPublicKey: PublicKey, claimedSenderId: Address?,
        recipientId: Address?,
        timestamp: Int32, chat: ChatAsset?, state: StateAsset?, signature: [UInt8], timestampMs: Int64?
    ) {
        self.type = type
        self.amount = amount
        self.senderPublicKey = senderPublicKey
        self.recipientId = recipientId
        self.timestamp = timestamp
        self.chat = chat
        self.state = state
        self.signature = signature
        self.senderId = claimedSenderId
        self.timestampMs = timestampMs
    }

    /// Whether a node has put it in a block.
    public var isConfirmed: Bool { height != nil }
}

// MARK: - JSON as nodes write it (docs/protocol.md §3.3, docs/node-api.md §1.4)

extension Transaction: Encodable {
    private enum CodingKeys: String, CodingKey {
        case id, height, blockId, type, timestamp, timestampMs, senderPublicKey, requesterPublicKey
        case senderId, recipientId, recipientPublicKey, amount, fee, signature, signSignature
        case confirmations, asset
        case blockTimestamp = "block_timestamp"
    }

    private enum AssetKeys: String, CodingKey { case chat, state }

    /// Writes every field that is set, in the node's names; `asset` is `{}` unless a chat or state.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(height, forKey: .height)
        try c.encodeIfPresent(blockId, forKey: .blockId)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(blockTimestamp, forKey: .blockTimestamp)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encodeIfPresent(timestampMs, forKey: .timestampMs)
        try c.encode(senderPublicKey, forKey: .senderPublicKey)
        try c.encodeIfPresent(requesterPublicKey.map(Hex.encode), forKey: .requesterPublicKey)
        try c.encodeIfPresent(senderId, forKey: .senderId)
        try c.encodeIfPresent(recipientId, forKey: .recipientId)
        try c.encodeIfPresent(recipientPublicKey, forKey: .recipientPublicKey)
        try c.encode(amount, forKey: .amount)
        try c.encodeIfPresent(fee, forKey: .fee)
        try c.encode(Hex.encode(signature), forKey: .signature)
        try c.encodeIfPresent(signSignature.map(Hex.encode), forKey: .signSignature)
        try c.encodeIfPresent(confirmations, forKey: .confirmations)
        var asset = c.nestedContainer(keyedBy: AssetKeys.self, forKey: .asset)
        try asset.encodeIfPresent(chat, forKey: .chat)
        try asset.encodeIfPresent(state, forKey: .state)
    }
}
