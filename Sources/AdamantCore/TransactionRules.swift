// Fees and the node's limits (docs/protocol.md §5).

/// The fee the node charges, in 1e-8 ADM (docs/protocol.md §5.1).
public enum Fee {
    /// A transfer's fee: 0.5 ADM.
    public static let transfer: Int64 = 50_000_000
    /// A message's fee per unit of ciphertext: 0.001 ADM.
    public static let messageUnit: Int64 = 100_000
    /// The same for legacy messages (chat type 0): 0.005 ADM.
    public static let legacyMessageUnit: Int64 = 500_000

    /// Type 0 and in-chat transfers: 0.5 ADM. Messages: 0.001 ADM per started 382.5 bytes
    /// of ciphertext, at least one unit (`floor(n·100/150/255)`, computed as `⌊2n/765⌋`).
    public static func of(_ transaction: Transaction) throws(TransactionError) -> Int64 {
        switch transaction.type {
        case .transfer:
            return transfer
        case .chat:
            guard let chat = transaction.chat else { throw .missingChatAsset }
            if transaction.amount > 0 { return transfer }
            return message(ciphertextLength: chat.message.count, type: chat.type)
        case .state:
            // The amount plays no part: the node prices the value alone.
            guard let state = transaction.state else { throw .missingStateAsset }
            return message(ciphertextLength: state.nodeHexLength)
        default:
            throw .unsupportedType(transaction.type.rawValue)
        }
    }

    /// The fee of a message with `ciphertextLength` bytes of ciphertext.
    public static func message(ciphertextLength: Int, type: ChatType = .message) -> Int64 {
        let units = max(1, Int64(ciphertextLength) * 2 / 765)
        return units * (type == .legacy ? legacyMessageUnit : messageUnit)
    }
}

/// The node's limits on what it accepts (docs/protocol.md §5.2).
public enum Limits {
    /// `asset.chat.message` is at most 20,480 hex characters.
    public static let maxCiphertextBytes = 10_240
    /// `asset.state.value`: 1–20,480 characters (JavaScript's UTF-16 length).
    public static let maxStateValueLength = 20_480
    /// `asset.state.key`: at most 20 characters (z-schema counts code points).
    public static let maxStateKeyLength = 20
}

extension Transaction {
    /// The checks a node makes on the signed content, before it would take the transaction.
    public func validate() throws(TransactionError) {
        guard (0...ADMAmount.totalSupply.units).contains(amount) else { throw .amountOutOfRange }
        guard recipientId != nil || type == .state else { throw .missingRecipient }
        switch type {
        case .transfer:
            guard amount > 0 else { throw .amountOutOfRange }
        case .state:
            try validateState()
        case .chat:
            guard let chat else { throw .missingChatAsset }
            guard !chat.message.isEmpty else { throw .emptyMessage }
            guard chat.message.count <= Limits.maxCiphertextBytes else { throw .messageTooLong(chat.message.count) }
            guard chat.nonce.count == 24 else { throw .nonceLength(chat.nonce.count) }
        default:
            throw .unsupportedType(type.rawValue)
        }
        if let timestampMs, timestampMs / 1000 != Int64(timestamp) || timestampMs < 0 { throw .timestampMsMismatch }
    }
}

extension Transaction {
    /// The node's state checks (`logic/state.js`), plus two of its own: no amount (the node
    /// would burn it) and no recipient (the node drops it).
    private func validateState() throws(TransactionError) {
        guard let state else { throw .missingStateAsset }
        guard amount == 0 else { throw .amountOutOfRange }
        guard recipientId == nil else { throw .unexpectedRecipient }
        guard (0...1).contains(state.type) else { throw .invalidStateType(state.type) }
        let trimmed = state.value.trimmingWhitespace
        guard !trimmed.isEmpty, trimmed.utf8.count == state.value.utf8.count else { throw .blankStateValue }
        let length = state.value.utf16.count
        guard length <= Limits.maxStateValueLength else { throw .stateValueTooLong(length) }
        let keyLength = state.key.unicodeScalars.count
        guard keyLength <= Limits.maxStateKeyLength else { throw .stateKeyTooLong(keyLength) }
    }
}

extension String {
    /// Without leading and trailing white space, as JavaScript's `trim()` sees it.
    var trimmingWhitespace: Substring {
        let isSpace = { (c: Character) in c.isWhitespace || c == "\u{FEFF}" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}

/// Why a transaction cannot be encoded, signed, accepted or trusted.
public enum TransactionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a transfer, chat or KVS value (the type number).
    case unsupportedType(Int)
    /// A chat without `asset.chat`.
    case missingChatAsset
    /// A KVS value without `asset.state`.
    case missingStateAsset
    /// A transfer or chat without a recipient.
    case missingRecipient
    /// A KVS value with a recipient.
    case unexpectedRecipient
    /// A KVS type other than 0 and 1.
    case invalidStateType(Int32)
    /// A KVS value that is empty or has white space around it.
    case blankStateValue
    /// A KVS value longer than the node takes (its length).
    case stateValueTooLong(Int)
    /// A KVS key longer than the node takes (its length).
    case stateKeyTooLong(Int)
    /// A negative amount, one above the total supply, or a transfer of nothing.
    case amountOutOfRange
    /// A chat with no ciphertext.
    case emptyMessage
    /// More ciphertext than the node takes (its length).
    case messageTooLong(Int)
    /// A chat nonce that is not 24 bytes (its length).
    case nonceLength(Int)
    /// `timestampMs` is not within the second of `timestamp`.
    case timestampMsMismatch
    /// The signature does not verify against the sender's key.
    case invalidSignature
    /// `senderId` is not the address of the sender's key.
    case senderMismatch
    /// The id a node reported is not the id of the signed bytes.
    case idMismatch(reported: TransactionID, computed: TransactionID)

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .unsupportedType: "unsupportedType"
        case .missingChatAsset: "missingChatAsset"
        case .missingStateAsset: "missingStateAsset"
        case .missingRecipient: "missingRecipient"
        case .unexpectedRecipient: "unexpectedRecipient"
        case .invalidStateType: "invalidStateType"
        case .blankStateValue: "blankStateValue"
        case .stateValueTooLong: "stateValueTooLong"
        case .stateKeyTooLong: "stateKeyTooLong"
        case .amountOutOfRange: "amountOutOfRange"
        case .emptyMessage: "emptyMessage"
        case .messageTooLong: "messageTooLong"
        case .nonceLength: "nonceLength"
        case .timestampMsMismatch: "timestampMsMismatch"
        case .invalidSignature: "invalidSignature"
        case .senderMismatch: "senderMismatch"
        case .idMismatch: "idMismatch"
        }
    }

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .unsupportedType(let type): "transaction type \(type) is not supported (only 0, 8 and 9)"
        case .missingChatAsset: "a chat transaction needs asset.chat (ask the node with returnAsset=1)"
        case .missingStateAsset: "a KVS transaction needs asset.state (ask the node with returnAsset=1)"
        case .missingRecipient: "the transaction has no recipient"
        case .unexpectedRecipient: "a KVS transaction has no recipient"
        case .invalidStateType(let type): "the KVS state type must be 0 or 1, got \(type)"
        case .blankStateValue: "the KVS value is empty or has white space around it"
        case .stateValueTooLong(let n):
            "the KVS value is \(n) characters, the node takes at most \(Limits.maxStateValueLength)"
        case .stateKeyTooLong(let n):
            "the KVS key is \(n) characters, the node takes at most \(Limits.maxStateKeyLength)"
        case .amountOutOfRange: "the amount must be between 0 and 98000000 ADM, and above 0 for a transfer"
        case .emptyMessage: "the chat message is empty"
        case .messageTooLong(let n):
            "the chat message is \(n) bytes of ciphertext, the node takes at most \(Limits.maxCiphertextBytes)"
        case .nonceLength(let n): "the chat nonce (own_message) must be 24 bytes, got \(n)"
        case .timestampMsMismatch: "timestampMs must be within the same second as timestamp"
        case .invalidSignature: "the signature does not verify against the sender's public key"
        case .senderMismatch: "senderId is not the address of senderPublicKey"
        case .idMismatch(let reported, let computed):
            "the reported id \(reported) is not the id of the signed bytes (\(computed))"
        }
    }
}
