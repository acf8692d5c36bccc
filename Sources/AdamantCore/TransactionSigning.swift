// Bytes, hash, signature and id of a transaction (docs/protocol.md §4).

extension Transaction {
    /// The signed bytes (docs/protocol.md §4.1–§4.2): type, timestamp, sender key, requester key if
    /// any, recipient (big-endian), amount, asset. 53 bytes plus the chat or state asset.
    public func unsignedBytes() throws(TransactionError) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(53 + (chat.map { $0.message.count + $0.nonce.count + 4 } ?? 0))
        bytes.append(UInt8(truncatingIfNeeded: type.rawValue))
        bytes.appendLittleEndian(UInt32(bitPattern: timestamp))
        bytes += senderPublicKey.bytes
        if let requesterPublicKey, !requesterPublicKey.isEmpty { bytes += requesterPublicKey }
        bytes.appendBigEndian(recipientId?.number ?? 0)  // none: eight zero bytes
        bytes.appendLittleEndian(UInt64(bitPattern: amount))
        switch type {
        case .transfer:
            break
        case .chat:
            guard let chat else { throw .missingChatAsset }
            bytes += chat.message
            bytes += chat.nonce
            bytes.appendLittleEndian(UInt32(chat.type.rawValue))
        case .state:
            guard let state else { throw .missingStateAsset }
            bytes += state.signedBytes
        default:
            throw .unsupportedType(type.rawValue)
        }
        return bytes
    }

    /// SHA-256 of the unsigned bytes: what the sender signs.
    public func signingHash() throws(TransactionError) -> [UInt8] { Digest.sha256(try unsignedBytes()) }

    /// The id from the bytes and signature(s), as the node computes it (docs/protocol.md §4.4).
    public func computedID() throws(TransactionError) -> TransactionID { id(ofUnsignedBytes: try unsignedBytes()) }

    private func id(ofUnsignedBytes bytes: [UInt8]) -> TransactionID {
        TransactionID(number: Sodium.leadingUInt64(ofSHA256: bytes, signature, signSignature ?? []))
    }

    /// Signs with `keyPair` (deterministic Ed25519 over the signing hash) and fills in the
    /// sender, id and fee, as the node would.
    public mutating func sign(with keyPair: KeyPair) throws(TransactionError) {
        senderPublicKey = keyPair.publicKey
        senderId = keyPair.address
        signSignature = nil
        signature = Ed25519.sign(try signingHash(), secretKey: keyPair.secretKey.storage)
        id = try computedID()
        fee = try Fee.of(self)
    }

    /// Checks what no node can be trusted with: the signature against the sender's key, the
    /// claimed sender address, and the reported id. Returns the id.
    @discardableResult
    public func verify() throws(TransactionError) -> TransactionID {
        let bytes = try unsignedBytes()
        guard
            let number = Ed25519.verifiedLeadingUInt64(
                signature: signature, sha256Of: bytes, publicKey: senderPublicKey.bytes, more: signSignature ?? [])
        else {
            throw .invalidSignature
        }
        if let senderId, senderId != senderPublicKey.address { throw .senderMismatch }
        let computed = TransactionID(number: number)
        if let id, id != computed { throw .idMismatch(reported: id, computed: computed) }
        return computed
    }
}

extension Transaction {
    /// A signed ADM transfer (type 0).
    public static func transfer(
        amount: Int64, to recipient: Address, timestamp: Int32, timestampMs: Int64? = nil, signedBy keyPair: KeyPair
    ) throws(TransactionError) -> Transaction {
        var transaction = Transaction(
            type: .transfer, amount: amount, senderPublicKey: keyPair.publicKey, recipientId: recipient,
            timestamp: timestamp, timestampMs: timestampMs)
        try transaction.validate()
        try transaction.sign(with: keyPair)
        return transaction
    }

    /// A signed chat transaction (type 8) carrying an already encrypted asset; `amount > 0`
    /// makes it an in-chat transfer.
    public static func chat(
        _ asset: ChatAsset, amount: Int64 = 0, to recipient: Address, timestamp: Int32, timestampMs: Int64? = nil,
        signedBy keyPair: KeyPair
    ) throws(TransactionError) -> Transaction {
        var transaction = Transaction(
            type: .chat, amount: amount, senderPublicKey: keyPair.publicKey, recipientId: recipient,
            timestamp: timestamp, chat: asset, timestampMs: timestampMs)
        try transaction.validate()
        try transaction.sign(with: keyPair)
        return transaction
    }
}

extension Transaction {
    /// A signed KVS transaction (type 9): `value` stored under `key` for the sender, with no
    /// recipient and no amount. Encrypt private values first (`KVSKey.seal`).
    public static func state(
        key: String, value: String, type: Int32 = 0, timestamp: Int32, timestampMs: Int64? = nil,
        signedBy keyPair: KeyPair
    ) throws(TransactionError) -> Transaction {
        var transaction = Transaction(
            type: .state, amount: 0, senderPublicKey: keyPair.publicKey, recipientId: nil, timestamp: timestamp,
            state: StateAsset(key: key, value: value, type: type), timestampMs: timestampMs)
        try transaction.validate()
        try transaction.sign(with: keyPair)
        return transaction
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        for index in (0..<(T.bitWidth / 8)).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
