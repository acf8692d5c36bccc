// Fees and the node's limits (§5).

/// The fee the node charges, in 1e-8 ADM (§5.1).
public enum Fee {
    public static let transfer: Int64 = 50_000_000
    public static let messageUnit: Int64 = 100_000
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
        default:
            throw .unsupportedType(transaction.type.rawValue)
        }
    }

    public static func message(ciphertextLength: Int, type: ChatType = .message) -> Int64 {
        let units = max(1, Int64(ciphertextLength) * 2 / 765)
        return units * (type == .legacy ? legacyMessageUnit : messageUnit)
    }
}

/// The node's limits on what it accepts (§5.2).
public enum Limits {
    /// `asset.chat.message` is at most 20,480 hex characters.
    public static let maxCiphertextBytes = 10_240
}

extension Transaction {
    /// The checks a node makes on the signed content, before it would take the transaction.
    public func validate() throws(TransactionError) {
        guard (0...ADMAmount.totalSupply.units).contains(amount) else { throw .amountOutOfRange }
        guard recipientId != nil else { throw .missingRecipient }
        switch type {
        case .transfer:
            guard amount > 0 else { throw .amountOutOfRange }
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

public enum TransactionError: Error, Sendable, Hashable, CustomStringConvertible {
    case unsupportedType(Int)
    case missingChatAsset
    case missingRecipient
    case amountOutOfRange
    case emptyMessage
    case messageTooLong(Int)
    case nonceLength(Int)
    case timestampMsMismatch
    case invalidSignature
    case senderMismatch
    case idMismatch(reported: TransactionID, computed: TransactionID)

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .unsupportedType: "unsupportedType"
        case .missingChatAsset: "missingChatAsset"
        case .missingRecipient: "missingRecipient"
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

    public var description: String {
        switch self {
        case .unsupportedType(let type): "transaction type \(type) is not supported (only 0 and 8)"
        case .missingChatAsset: "a chat transaction needs asset.chat (ask the node with returnAsset=1)"
        case .missingRecipient: "the transaction has no recipient"
        case .amountOutOfRange: "the amount must be between 0 and 98000000 ADM, and above 0 for a transfer"
        case .emptyMessage: "the chat message is empty"
        case .messageTooLong(let n): "the chat message is \(n) bytes of ciphertext, the node takes at most \(Limits.maxCiphertextBytes)"
        case .nonceLength(let n): "the chat nonce (own_message) must be 24 bytes, got \(n)"
        case .timestampMsMismatch: "timestampMs must be within the same second as timestamp"
        case .invalidSignature: "the signature does not verify against the sender's public key"
        case .senderMismatch: "senderId is not the address of senderPublicKey"
        case .idMismatch(let reported, let computed): "the reported id \(reported) is not the id of the signed bytes (\(computed))"
        }
    }
}
