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
        let root: Carrier
        do { root = try JSONCoding.decode(Carrier.self, from: bytes) } catch let error as PushPayloadError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw (context.underlyingError as? JSONRefusal)?.isTooDeep == true ? .tooDeep : .notJSON
        } catch {
            throw .notAnObject
        }
        guard let carrier = root.firstCarrying else { throw .noTransaction }
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
        case .noTransaction: "the payload names no transaction: expected \"txn-id\" or \"txn\" (at the top level, under \"data\" or under \"message.data\")"
        case .invalid(let field, let reason): "the payload's \"\(field)\" \(reason)"
        case .idsDisagree(let id, let carried): "the payload's \"txn-id\" \(id) is not the id of the transaction it carries (\(carried))"
        }
    }
}

/// One level of the payload: the keys fetch reads, and the levels that may hold them.
private final class Carrier: Decodable, Sendable {
    let id: TransactionID?
    let transaction: Transaction?
    let recipient: Address?
    let data: Carrier?
    let message: Carrier?

    private enum Keys: String, CodingKey {
        case id = "txn-id", transaction = "txn", recipient = "push-recipient", data, message
    }

    /// This level if it names a transaction, else `data`'s, else `message`'s.
    var firstCarrying: Carrier? {
        if id != nil || transaction != nil { return self }
        return data?.firstCarrying ?? message?.firstCarrying
    }

    init(from decoder: any Decoder) throws {
        // Levels are only ever two deep (`message.data`); deeper is not a push.
        guard decoder.codingPath.count <= 2 else { throw PushPayloadError.noTransaction }
        let c = try decoder.container(keyedBy: Keys.self)
        if c.contains(.id), try !c.decodeNil(forKey: .id) {
            // A string of digits as the C# ANS sends it, or a number.
            guard let number = try? c.decodeIntegerOrString(UInt64.self, forKey: .id) else {
                throw PushPayloadError.invalid(field: "txn-id", reason: "is not a transaction id (digits below 2^64)")
            }
            id = TransactionID(number: number)
        } else {
            id = nil
        }
        transaction = try Self.transaction(in: c)
        if let text = try? c.decodeIfPresent(String.self, forKey: .recipient) {
            do { recipient = try Address(text) } catch {
                throw PushPayloadError.invalid(field: "push-recipient", reason: "is not an ADAMANT address: \(error)")
            }
        } else if c.contains(.recipient), try !c.decodeNil(forKey: .recipient) {
            throw PushPayloadError.invalid(field: "push-recipient", reason: "is not a string")
        } else {
            recipient = nil
        }
        data = try Self.carrier(in: c, forKey: .data)
        message = try Self.carrier(in: c, forKey: .message)
    }

    /// The level under `key`. One that is not an object, or nests too deep, carries nothing; one
    /// whose transaction fields are wrong says so, since they are what the push is about.
    private static func carrier(in c: KeyedDecodingContainer<Keys>, forKey key: Keys) throws -> Carrier? {
        do { return try c.decodeIfPresent(Carrier.self, forKey: key) } catch let error as PushPayloadError {
            switch error {
            case .invalid, .idsDisagree: throw error
            default: return nil
            }
        } catch {
            return nil
        }
    }

    /// `txn`: the transaction as a JSON string (FCM data values are strings) or as an object.
    private static func transaction(in c: KeyedDecodingContainer<Keys>) throws -> Transaction? {
        guard c.contains(.transaction), try !c.decodeNil(forKey: .transaction) else { return nil }
        do {
            if let text = try? c.decode(String.self, forKey: .transaction) {
                return try JSONCoding.decode(Transaction.self, from: text.utf8)
            }
            return try c.decode(Transaction.self, forKey: .transaction)
        } catch {
            throw PushPayloadError.invalid(field: "txn", reason: "is not a transaction: \(Self.reason(error))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, _): return "\"\(key.stringValue)\" is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\"\(path)\": \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
