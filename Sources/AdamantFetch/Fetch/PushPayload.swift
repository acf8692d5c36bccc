public import AdamantCore

/// A push as the device received it, reduced to what fetch needs: the transaction's id, the
/// whole transaction when the push carries it, and the address it was pushed for.
///
/// Accepted shapes (the keys may sit at the top level, under `data`, or under `message.data`,
/// the FCM HTTP v1 envelope):
/// - APNs from the C# ANS: `{"aps": {…}, "txn-id": "…", "push-recipient": "U…"}`
/// - FCM from adamant-ns, the web and Android apps' service:
///   `{"data": {"txn": "<the transaction as a JSON string>", "txn-id": "…", "push-recipient": "…"}}`
/// - FCM with `txn-id` (and `push-recipient`) and no `txn`, read as the APNs shape is
/// - `txn` as a JSON object instead of a string, at any of these levels
///
/// Where `txn` is, the push is the transaction it carries, with the id it carries: adamant-ns
/// fills `txn-id` and `push-recipient` beside it with fixed placeholders, so there they are
/// neither read nor judged, and the account the push is for is the transaction's own. A
/// carried transaction is still verified exactly like a fetched one; this only reads it.
public struct PushPayload: Sendable, Hashable {
    /// The transaction the push is about.
    public var id: TransactionID
    /// The whole transaction, when the push carries it (FCM's `txn`); not verified yet.
    public var transaction: Transaction?
    /// The account the push was sent for (`push-recipient`), when the push says; never read
    /// beside a carried transaction, whose own parties say it.
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
        guard let carrier, let id = carrier.transaction?.id ?? carrier.id else { throw .noTransaction }
        self.init(id: id, transaction: carrier.transaction, recipient: carrier.recipient)
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
        }
    }
}

/// One level of the payload: the keys fetch reads.
private struct Level {
    var id: TransactionID?
    var transaction: Transaction?
    var recipient: Address?
    /// The first of `txn-id` and `push-recipient` that is wrong, judged only once the level is
    /// read: beside `txn`, wherever it stands, they are placeholders.
    var wrong: PushPayloadError?

    /// Levels are only ever two deep (`message.data`); deeper is not a push.
    static let deepest = 2

    /// The level at the reader if it names a transaction, else the first under its `data`, else
    /// under its `message`. One that is not an object carries nothing; a bad field, wherever it
    /// stands, is `refusal` (the read then stops), since it is what the push is about; except
    /// `txn-id` and `push-recipient` beside `txn`, which are not read.
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
            func judgeLater(_ field: String, _ reason: String) {
                if level.wrong == nil { level.wrong = .invalid(field: field, reason: reason) }
            }
            guard seen.insert(key.text).inserted else {
                try reader.skipValue()
                return
            }
            guard try !reader.readNull() else { return }
            switch key {
            case "txn-id":
                // A string of digits as the C# ANS sends it, or a number. Read on a copy, so
                // that one that is not (perhaps a placeholder) is passed over whole.
                var value = reader
                if let number = try? value.readIntegerOrString(UInt64.self) {
                    reader = value
                    level.id = TransactionID(number: number)
                } else {
                    try reader.skipValue()
                    judgeLater("txn-id", "is not a transaction id (digits below 2^64)")
                }
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
                // Its own id is the push's: a `txn-id` beside it may be a placeholder.
                guard level.transaction?.id != nil else { throw refuse("txn", "has no \"id\"") }
            case "push-recipient":
                var value = reader
                if reader.kind == .string, let text = try? value.readString() {
                    reader = value
                    do { level.recipient = try Address(text) } catch {
                        judgeLater("push-recipient", "is not an ADAMANT address: \(error)")
                    }
                } else {
                    try reader.skipValue()
                    judgeLater("push-recipient", "is not a string")
                }
            case "data": data = try firstNaming(&reader, depth: depth + 1, refusal: &refusal)
            case "message": message = try firstNaming(&reader, depth: depth + 1, refusal: &refusal)
            default: try reader.skipValue()
            }
        }
        if let transaction = level.transaction { return Level(transaction: transaction) }
        if let wrong = level.wrong {
            refusal = wrong
            throw reader.failure("\(wrong)")
        }
        return level.id != nil ? level : data ?? message
    }
}
