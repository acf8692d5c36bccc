public import AdamantCore

/// A push as the device received it, reduced to what fetch needs: the transaction's id, the
/// whole transaction when the push carries it, and the address it was pushed for.
///
/// Accepted shapes (the keys may sit at the top level, under `data`, or under `message.data`,
/// the FCM HTTP v1 envelope):
/// - APNs from the C# ANS: `{"aps": {…}, "txn-id": "…", "push-recipient": "U…"}`
/// - FCM from the new ANS: `{"data": {"txn": "<the transaction as a JSON string>"}}`, or with
///   `txn-id` instead of `txn`
/// - either with `txn` as a JSON object, and both `txn` and `txn-id` (they must then agree)
///
/// A carried transaction is still verified exactly like a fetched one; this only reads it.
public struct PushPayload: Sendable, Hashable {
    /// The transaction the push is about.
    public var id: TransactionID
    /// The whole transaction, when the push carries it (FCM's `txn`); not verified yet.
    public var transaction: Transaction?
    /// The account the push was sent for (`push-recipient`), when the push says.
    public var recipient: Address?

    /// APNs allows 4 KiB and FCM 4 KiB of data; a transaction of the largest message is ~21 KiB.
    public static let maximumSize = 64 * 1024

    /// A push known only by its id, or made from parts already read.
    public init(id: TransactionID, transaction: Transaction? = nil, recipient: Address? = nil) {
        self.id = id
        self.transaction = transaction
        self.recipient = recipient
    }

    /// Reads a push as delivered, in any of the shapes above; at most `maximumSize` bytes.
    public init(json bytes: some Collection<UInt8>) throws(PushPayloadError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(bytes.count) }
        let bytes = Array(bytes)
        // The whole payload is checked as JSON before any field is judged, so a broken one is
        // "not JSON" wherever it breaks.
        let rules = JSONReader.Rules(maximumDepth: JSONValue.maximumDepth)
        do { try JSONReader.read(bytes, rules: rules) { reader throws(JSONReadError) in try reader.skipValue() } } catch
        {
            throw error.nestsTooDeep ? .tooDeep : .notJSON
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .notJSON }
        var refusal: PushPayloadError?
        let carrier: Level?
        do {
            carrier = try JSONReader.read(bytes, rules: rules) { reader throws(JSONReadError) in
                guard reader.kind == .object else {
                    refusal = .notAnObject
                    throw reader.failure("")
                }
                return try Level.firstNaming(&reader, depth: 0, refusal: &refusal)
            }
        } catch {
            throw refusal ?? .notJSON
        }
        guard let carrier else { throw .noTransaction }
        let transaction = carrier.transaction
        guard let id = carrier.id ?? transaction?.id else { throw .noTransaction }
        if let carried = transaction?.id, carried != id { throw .idsDisagree(id: id, carried: carried) }
        self.init(id: id, transaction: transaction, recipient: carrier.recipient)
    }
}

/// Why a payload is not a push fetch can use.
public enum PushPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Larger than `PushPayload.maximumSize` bytes (the size given).
    case tooLarge(Int)
    /// Not a JSON object.
    case notJSON
    /// JSON, but an array or a single value.
    case notAnObject
    /// JSON nested deeper than the reader goes (`JSONValue.maximumDepth`), which no push is.
    case tooDeep
    /// Names no transaction: neither `txn-id` nor `txn` where they are looked for.
    case noTransaction
    /// A field is there but wrong: its name, and why.
    case invalid(field: String, reason: String)
    /// `txn-id` and the carried transaction's id differ.
    case idsDisagree(id: TransactionID, carried: TransactionID)

    /// The reason in a sentence, naming the field.
    public var description: String {
        switch self {
        case .tooLarge(let size): "the payload is \(size) bytes; a push is at most \(PushPayload.maximumSize)"
        case .notJSON: "the payload is not JSON"
        case .notAnObject: "the payload is JSON but not an object"
        case .tooDeep: "the payload nests deeper than \(JSONValue.maximumDepth) levels, which no push does"
        case .noTransaction:
            "the payload names no transaction: expected \"txn-id\" or \"txn\" (at the top level, under \"data\" or under \"message.data\")"
        case .invalid(let field, let reason): "the payload's \"\(field)\" \(reason)"
        case .idsDisagree(let id, let carried):
            "the payload's \"txn-id\" \(id) is not the id of the transaction it carries (\(carried))"
        }
    }
}

/// One level of the payload: the keys fetch reads.
private struct Level {
    var id: TransactionID?
    var transaction: Transaction?
    var recipient: Address?

    /// Levels are only ever two deep (`message.data`); deeper is not a push.
    static let deepest = 2

    /// The level at the reader if it names a transaction, else the first under its `data`, else
    /// under its `message`. One that is not an object carries nothing; a bad field, wherever it
    /// stands, is `refusal` (the read then stops), since it is what the push is about.
    static func firstNaming(_ reader: inout JSONReader, depth: Int, refusal: inout PushPayloadError?)
        throws(JSONReadError) -> Level?
    {
        guard reader.kind == .object, depth <= deepest else {
            try reader.skipValue()
            return nil
        }
        var level = Level()
        var data: Level?
        var message: Level?
        // Of a key named twice the first counts, as `JSONDecoder` takes it.
        var seen = Set<String>()
        try reader.readObject { reader, key throws(JSONReadError) in
            func refuse(_ field: String, _ reason: String) -> JSONReadError {
                refusal = .invalid(field: field, reason: reason)
                return reader.failure(reason)
            }
            guard seen.insert(key.text).inserted else {
                try reader.skipValue()
                return
            }
            guard try !reader.readNull() else { return }
            switch key {
            case "txn-id":
                // A string of digits as the C# ANS sends it, or a number.
                guard let number = try? reader.readIntegerOrString(UInt64.self) else {
                    throw refuse("txn-id", "is not a transaction id (digits below 2^64)")
                }
                level.id = TransactionID(number: number)
            case "txn":
                // The transaction as a JSON string (FCM data values are strings) or as an object.
                do throws(JSONReadError) {
                    if reader.kind == .string {
                        let text = try reader.readString()
                        level.transaction = try Transaction(json: Array(text.utf8))
                    } else {
                        level.transaction = try Transaction(json: &reader)
                    }
                } catch {
                    throw refuse("txn", "is not a transaction: \(error)")
                }
            case "push-recipient":
                guard reader.kind == .string else { throw refuse("push-recipient", "is not a string") }
                let text = try reader.readString()
                do { level.recipient = try Address(text) } catch {
                    throw refuse("push-recipient", "is not an ADAMANT address: \(error)")
                }
            case "data": data = try firstNaming(&reader, depth: depth + 1, refusal: &refusal)
            case "message": message = try firstNaming(&reader, depth: depth + 1, refusal: &refusal)
            default: try reader.skipValue()
            }
        }
        return level.id != nil || level.transaction != nil ? level : data ?? message
    }
}
