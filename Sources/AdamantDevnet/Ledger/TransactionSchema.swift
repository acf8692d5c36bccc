import AdamantCore

/// Why a node refused a request: its exact error text.
struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Reads a submitted transaction the way the node's JSON schemas do, failing with z-schema's
/// texts (`Missing required property: …`, `Expected type … but found type …`, `Object didn't
/// pass validation for format …: …`) behind the node's prefix.
struct SchemaReader {
    let object: JSONValue
    /// `Failed to validate transaction schema: ` and the like; empty for endpoint schemas.
    let prefix: String

    func fail(_ message: String) -> Rejection { Rejection(prefix + message) }

    /// Null counts as absent: the node strips null fields first.
    func require(_ key: String) throws(Rejection) -> JSONValue {
        guard let value = present(key) else { throw fail("Missing required property: \(key)") }
        return value
    }

    /// A whole number in `range`; past Int64 it comes back clamped to Int64's ends.
    func integer(_ key: String, in range: ClosedRange<Int64>? = nil) throws(Rejection) -> Int64 {
        let value = try require(key)
        guard let number = value.schemaInteger else {
            throw fail("Expected type integer but found type \(value.schemaType)")
        }
        if let range, number < range.lowerBound {
            throw fail("Value \(value.javaScriptNumber) is less than minimum \(range.lowerBound)")
        }
        if let range, number > range.upperBound {
            throw fail("Value \(value.javaScriptNumber) is greater than maximum \(range.upperBound)")
        }
        return number
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>? = nil) throws(Rejection) -> Int64? {
        present(key) == nil ? nil : try integer(key, in: range)
    }

    func string(_ key: String, format: Format? = nil, maxLength: Int? = nil) throws(Rejection) -> String {
        let value = try require(key)
        guard case .string(let text) = value else {
            throw fail("Expected type string but found type \(value.schemaType)")
        }
        if let maxLength, text.count > maxLength {
            throw fail("String is too long (\(text.count) chars), maximum \(maxLength)")
        }
        if let format, !format.accepts(text) {
            throw fail("Object didn't pass validation for format \(format.rawValue): \(text)")
        }
        return text
    }

    func optionalString(_ key: String, format: Format? = nil, maxLength: Int? = nil) throws(Rejection) -> String? {
        present(key) == nil ? nil : try string(key, format: format, maxLength: maxLength)
    }

    func nestedObject(_ key: String) throws(Rejection) -> JSONValue? {
        guard let value = present(key) else { return nil }
        guard case .object = value else { throw fail("Expected type object but found type \(value.schemaType)") }
        return value
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// The node's custom z-schema formats.
    enum Format: String {
        case address, publicKey, signature, hex

        func accepts(_ text: String) -> Bool {
            switch self {
            case .address: (try? Address(text)) != nil
            case .publicKey: Hex.decode(text, length: 32) != nil
            case .signature: Hex.decode(text, length: 64) != nil
            case .hex: Hex.decode(text) != nil
            }
        }
    }
}

/// The node's transaction, chat and state schemas (`logic/transaction.js`, `logic/chat.js`,
/// `logic/state.js`).
enum TransactionSchema {
    static let maxMessageLength = 20_480
    static let maxStateValueLength = 20_480
    static let maxStateKeyLength = 20

    /// Step 1, the endpoint's own schema: a `transaction` object with a signature.
    static func endpoint(_ body: JSONValue) throws(Rejection) -> JSONValue {
        guard case .object = body else { throw Rejection("Expected type object but found type \(body.schemaType)") }
        let endpoint = SchemaReader(object: body, prefix: "")
        let transaction = try endpoint.require("transaction")
        guard case .object = transaction else {
            throw Rejection("Expected type object but found type \(transaction.schemaType)")
        }
        _ = try SchemaReader(object: transaction, prefix: "").string("signature", format: .signature)
        return transaction
    }

    /// Normalisation: every signed field typed and in range, giving the transaction the node
    /// will hash. `timestampMs` only counts for the future check and is then dropped, as
    /// before the node's "spaceship" activation height.
    static func normalize(_ object: JSONValue, version: NodeVersion) throws(Rejection) -> Transaction {
        let reader = SchemaReader(object: object, prefix: "Failed to validate transaction schema: ")
        let type = try reader.integer("type")
        let timestamp = try reader.integer("timestamp")
        let senderPublicKey = try reader.string("senderPublicKey", format: .publicKey)
        let signature = try reader.string("signature", format: .signature)
        let amount = try reader.integer("amount", in: 0...ADMAmount.totalSupply.units)
        let senderId = try reader.optionalString("senderId", format: .address)
        let recipientId = try reader.optionalString("recipientId", format: .address)
        _ = try reader.optionalInteger("timestampMs")
        _ = try reader.optionalInteger("fee", in: 0...ADMAmount.totalSupply.units)
        let asset = try reader.nestedObject("asset")
        guard let signedTimestamp = Int32(exactly: timestamp) else { throw Rejection(version.int32RangeMessage) }

        let transactionType = TransactionType(rawValue: Int(type))
        let chat = transactionType == .chat ? try chatAsset(in: asset) : nil
        let state = transactionType == .state ? try stateAsset(in: asset) : nil
        // The formats above were checked with these very parsers.
        var transaction = Transaction(
            type: transactionType, amount: amount, senderPublicKey: try! PublicKey(hex: senderPublicKey),
            recipientId: recipientId.map { try! Address($0) }, timestamp: signedTimestamp, chat: chat, state: state,
            signature: Hex.decode(signature)!)
        transaction.senderId = senderId.map { try! Address($0) }
        return transaction
    }

    private static func chatAsset(in asset: JSONValue?) throws(Rejection) -> ChatAsset {
        guard let chat = asset?["chat"], case .object = chat else { throw Rejection("Invalid transaction asset") }
        let reader = SchemaReader(object: chat, prefix: "Failed to validate chat schema: ")
        let message = try reader.string("message", format: .hex, maxLength: maxMessageLength)
        let nonce = try reader.optionalString("own_message", format: .hex, maxLength: maxMessageLength) ?? ""
        let rawType = try reader.integer("type")
        guard let type = ChatType(rawValue: Int(rawType)) else { throw Rejection("Invalid message type") }
        return ChatAsset(message: Hex.decode(message)!, nonce: Hex.decode(nonce)!, type: type)
    }

    /// `State.objectNormalize`: key 0–20 characters, value 1–20,480, type an integer ≥ 0. A
    /// type outside int32 cannot be the 0 or 1 `verify` wants, so it fails as verify would.
    private static func stateAsset(in asset: JSONValue?) throws(Rejection) -> StateAsset {
        guard let state = asset?["state"], case .object = state else { throw Rejection("Invalid transaction asset") }
        let reader = SchemaReader(object: state, prefix: "Failed to validate state schema: ")
        let key = try reader.optionalString("key", maxLength: maxStateKeyLength) ?? ""
        let value = try reader.string("value", maxLength: maxStateValueLength)
        if value.isEmpty { throw reader.fail("String is too short (0 chars), minimum 1") }
        let rawType = try reader.integer("type", in: 0...Int64.max)
        guard let type = Int32(exactly: rawType) else { throw Rejection("Invalid state type") }
        return StateAsset(key: key, value: value, type: type)
    }
}
