import AdamantCore
import Foundation

extension Ledger {
    /// What happens to an admitted transaction.
    enum Disposition: Sendable {
        /// Into the queue, as a healthy node does.
        case enqueue
        /// Answered as accepted but thrown away (the `drop` fault).
        case discard
    }

    /// Takes a `{"transaction": …}` body through the node's checks in the node's order
    /// (docs/node-api.md §2, docs/protocol.md §5.3) and queues it. Returns the transaction with its
    /// id and fee worked out again; throws the first check that fails, with the node's text.
    /// `/api/states/store` looks no recipient up (`needsRecipient: false`).
    mutating func submit(
        _ body: JSONValue, version: NodeVersion, nowUnixMillis: Int64, disposition: Disposition = .enqueue,
        needsRecipient: Bool = true
    ) throws(Rejection) -> Transaction {
        let policy = version.timestampPolicy
        let nowEpochMillis = AdamantTime.epochMillis(unixMillis: nowUnixMillis)

        // 1–2. Endpoint schema, then the recipient lookup.
        let object = try TransactionSchema.endpoint(body)
        if needsRecipient, object["recipientId"].map(isPresent) != true { throw Rejection("Invalid recipient") }

        // 4. publish(): type, sender, and on 0.10 both timestamp windows, before any duplicate check.
        let rawType = object["type"] ?? .null
        guard let type = Self.knownType(rawType) else {
            throw Rejection("Unknown transaction type \(Self.javaScriptText(rawType))")
        }
        guard object["senderId"].map(isPresent) == true else { throw Rejection("Invalid sender") }
        // JavaScript does this arithmetic in doubles; clamped first, it cannot overflow here.
        if policy == .v0_10, let timestamp = object["timestamp"]?.schemaInteger,
            let rejection = policy.check(
                type: type, timestamp: OutsideTime.clamped(timestamp),
                timestampMs: object["timestampMs"]?.schemaInteger.map(OutsideTime.clamped),
                nowEpochMillis: nowEpochMillis)
        {
            throw Rejection(rejection.message(under: policy))
        }

        // The id and fee are worked out from the normalised fields; the client's are ignored.
        var transaction = try TransactionSchema.normalize(object, version: version)
        // Normalisation vouched for everything these read: a type 0, 8 or 9, with its asset.
        let id = try! transaction.computedID()
        transaction.id = id
        transaction.fee = try! Fee.of(transaction)

        // 5. Pool duplicate.
        if isPooled(id) { throw Rejection("Transaction is already processed: \(id)") }

        // 7. verify().
        let sender = transaction.senderPublicKey.address
        if transaction.senderId != sender { throw Rejection("Invalid sender address") }
        transaction.senderId = sender
        do { try transaction.verify() } catch { throw Rejection("Failed to verify signature") }
        let balance = accounts[sender]?.balance ?? 0
        if balance < transaction.amount + transaction.fee! {
            throw Rejection("Account does not have enough ADM: \(sender) balance: \(ADMAmount(units: balance))")
        }
        if policy == .v0_9,
            let rejection = policy.check(
                type: transaction.type, timestamp: Int64(transaction.timestamp), timestampMs: nil,
                nowEpochMillis: nowEpochMillis)
        {
            throw Rejection(rejection.message(under: policy))
        }
        try Self.checkType(of: transaction)
        if confirmed(id) != nil { throw Rejection("Transaction is already confirmed: \(id)") }

        // 8. Queue.
        if queued.count >= rules.poolCapacity { throw Rejection("Transaction pool is full") }
        if case .enqueue = disposition { enqueue(transaction, nowUnixMillis: nowUnixMillis) }
        return transaction
    }

    /// The type-specific part of verify().
    private static func checkType(of transaction: Transaction) throws(Rejection) {
        switch transaction.type {
        case .transfer:
            if transaction.amount <= 0 { throw Rejection("Invalid transaction amount") }
        case .state:
            // `State.verify`; normalisation already required the asset.
            guard let state = transaction.state else { throw Rejection("Invalid transaction asset") }
            if !(0...1).contains(state.type) { throw Rejection("Invalid state type") }
            let trimmed = state.value.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed != state.value { throw Rejection("Value must not be blank") }
            if state.value.utf16.count > TransactionSchema.maxStateValueLength {
                throw Rejection("Value is too long. Maximum is 20480 characters")
            }
        default:
            // A hex message cannot hold whitespace, and the schema already capped its length.
            if transaction.chat?.message.isEmpty == true { throw Rejection("Message must not be blank") }
        }
    }

    /// The types the devnet simulates. JavaScript looks `trs.type` up as an object key, so the
    /// string "8" passes here and fails the schema later ("+8" or "08" are other keys).
    private static func knownType(_ value: JSONValue) -> TransactionType? {
        let number: Int? =
            switch value {
            case .number: value.int64.flatMap { Int(exactly: $0) }
            case .string(let text): Int(text).flatMap { String($0) == text ? $0 : nil }
            default: nil
            }
        return number.map(TransactionType.init(rawValue:)).flatMap {
            [.transfer, .chat, .state].contains($0) ? $0 : nil
        }
    }

    private func isPresent(_ value: JSONValue) -> Bool {
        switch value {
        case .null: false
        case .string(let text): !text.isEmpty
        default: true
        }
    }

    /// How JavaScript prints a value in `'Unknown transaction type ' + trs.type`.
    private static func javaScriptText(_ value: JSONValue) -> String {
        switch value {
        case .null: "undefined"
        case .string(let text): text
        case .number: value.javaScriptNumber
        case .bool(let flag): String(flag)
        case .array(let elements): elements.map(javaScriptText).joined(separator: ",")
        case .object: "[object Object]"
        }
    }
}
