// Transactions are read with `JSONReader` only: from node answers, push payloads and files
// alike. The transaction fuzz target holds the reader to Foundation's `JSONSerialization`.

extension Transaction {
    /// The transaction a whole document holds.
    package init(json document: [UInt8]) throws(JSONReadError) {
        self = try JSONReader.read(document) { reader throws(JSONReadError) in try Transaction(json: &reader) }
    }

    /// The keys read, each read once.
    private enum Key: Int {
        case type, amount, senderPublicKey, recipientId, timestamp, asset, requesterPublicKey, signature, signSignature
        case senderId, timestampMs, id, fee, height, blockId, blockTimestamp, confirmations, recipientPublicKey
    }

    private enum AssetKey: Int { case chat, state }

    /// The transaction at `reader`, as nodes write it (docs/protocol.md §3.3,
    /// docs/node-api.md §1.4): strict where the bytes are signed, tolerant where node versions
    /// differ.
    package init(json reader: inout JSONReader) throws(JSONReadError) {
        var seen = SeenKeys<Key>()
        var type: TransactionType?
        var amount: Int64?
        var senderPublicKey: PublicKey?
        var timestamp: Int32?
        var signature: [UInt8]?
        var recipientId: Address?
        var chat: ChatAsset?
        var state: StateAsset?
        var requesterPublicKey: [UInt8]?
        var signSignature: [UInt8]?
        var senderId: Address?
        var timestampMs: Int64?
        var id: TransactionID?
        var fee: Int64?
        var height: Int64?
        var blockId: String?
        var blockTimestamp: Int64?
        var confirmations: Int64?
        var recipientPublicKey: PublicKey?
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            case "type":
                try seen.first(.type, reader)
                type = TransactionType(rawValue: try reader.readInteger())
            case "amount":
                try seen.first(.amount, reader)
                amount = try reader.readIntegerOrString()
            case "senderPublicKey":
                try seen.first(.senderPublicKey, reader)
                senderPublicKey = try reader.readPublicKey()
            case "recipientId":
                try seen.first(.recipientId, reader)
                // Null, absent or "" for types without a recipient.
                if let address = reader.readString(parsingBytes: ASCIIField.address) {
                    recipientId = address
                } else if let text = try reader.readOptionalString(), !text.isEmpty {
                    do { recipientId = try Address(text) } catch { throw reader.failure("\(reader.here): \(error)") }
                }
            case "timestamp":
                try seen.first(.timestamp, reader)
                let raw: Int64 = try reader.readInteger()
                guard let exact = Int32(exactly: raw) else {
                    throw reader.failure("\(reader.here): outside the signed int32 range")
                }
                timestamp = exact
            case "asset":
                try seen.first(.asset, reader)
                guard try !reader.readNull() else { break }
                var assets = SeenKeys<AssetKey>()
                try reader.readObject { reader, key throws(JSONReadError) in
                    switch key {
                    case "chat":
                        try assets.first(.chat, reader)
                        chat = try reader.readOptional { reader throws(JSONReadError) in try ChatAsset(json: &reader) }
                    case "state":
                        try assets.first(.state, reader)
                        state = try reader.readOptional { reader throws(JSONReadError) in try StateAsset(json: &reader)
                        }
                    default: try reader.skipValue()
                    }
                }
            case "requesterPublicKey":
                try seen.first(.requesterPublicKey, reader)
                requesterPublicKey = try reader.readHexIfPresent(length: PublicKey.length)
            case "signature":
                try seen.first(.signature, reader)
                signature = try reader.readHex(length: Ed25519.signatureLength)
            case "signSignature":
                try seen.first(.signSignature, reader)
                signSignature = try reader.readHexIfPresent(length: Ed25519.signatureLength)
            case "senderId":
                try seen.first(.senderId, reader)
                if let address = reader.readString(parsingBytes: ASCIIField.address) {
                    senderId = address
                } else {
                    senderId = try reader.readOptionalParsed(Address.self)
                }
            case "timestampMs":
                try seen.first(.timestampMs, reader)
                timestampMs = try reader.readOptionalInteger()
            case "id":
                try seen.first(.id, reader)
                if let number = reader.readString(parsingBytes: ASCIIField.decimal) {
                    id = TransactionID(number: number)
                } else {
                    id = try reader.readOptionalParsed(TransactionID.self)
                }
            case "fee":
                try seen.first(.fee, reader)
                fee = try reader.readOptionalIntegerOrString()
            case "height":
                try seen.first(.height, reader)
                height = try reader.readOptionalIntegerOrString()
            case "blockId":
                try seen.first(.blockId, reader)
                blockId = try reader.readOptionalString()
            case "block_timestamp":
                try seen.first(.blockTimestamp, reader)
                blockTimestamp = try reader.readOptionalIntegerOrString()
            case "confirmations":
                try seen.first(.confirmations, reader)
                confirmations = try reader.readOptionalIntegerOrString()
            case "recipientPublicKey":
                try seen.first(.recipientPublicKey, reader)
                recipientPublicKey = try reader.readOptionalParsed(PublicKey.self)
            default: try reader.skipValue()
            }
        }
        guard let type else { throw reader.missing("type") }
        guard let amount else { throw reader.missing("amount") }
        guard let senderPublicKey else { throw reader.missing("senderPublicKey") }
        guard let timestamp else { throw reader.missing("timestamp") }
        guard let signature else { throw reader.missing("signature") }
        self.init(
            type: type, amount: amount, senderPublicKey: senderPublicKey, claimedSenderId: senderId,
            recipientId: recipientId,
            timestamp: timestamp, chat: chat, state: state, signature: signature, timestampMs: timestampMs)
        self.requesterPublicKey = requesterPublicKey
        self.signSignature = signSignature
        self.id = id
        self.fee = fee
        self.height = height
        self.blockId = blockId
        self.blockTimestamp = blockTimestamp
        self.confirmations = confirmations
        self.recipientPublicKey = recipientPublicKey
    }
}

extension ChatAsset {
    private enum Key: Int { case message, ownMessage, type }

    /// The transaction at `reader`, as nodes write it (docs/protocol.md §3.3,
    /// docs/node-api.md §1.4): strict where the bytes are signed, tolerant where node versions
    /// differ.
    package init(json reader: inout JSONReader) throws(JSONReadError) {
        var seen = SeenKeys<Key>()
        var message: [UInt8]?
        var nonce: [UInt8] = []
        var type: ChatType?
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            case "message":
                try seen.first(.message, reader)
                message = try reader.readHex()
            case "own_message":
                try seen.first(.ownMessage, reader)
                if let bytes = reader.readString(parsingBytes: { ASCIIField.hex($0, length: nil) }) {
                    nonce = bytes
                } else if let text = try reader.readOptionalString() {
                    guard let bytes = Hex.decode(text) else {
                        throw reader.failure("\(reader.here): not canonical hex")
                    }
                    nonce = bytes
                }
            case "type":
                try seen.first(.type, reader)
                let raw: Int = try reader.readInteger()
                guard let known = ChatType(rawValue: raw) else {
                    throw reader.failure("\(reader.here): unknown chat type \(raw)")
                }
                type = known
            default: try reader.skipValue()
            }
        }
        guard let message else { throw reader.missing("message") }
        guard let type else { throw reader.missing("type") }
        self.init(message: message, nonce: nonce, type: type)
    }
}

extension StateAsset {
    private enum Key: Int { case key, value, type }

    /// The transaction at `reader`, as nodes write it (docs/protocol.md §3.3,
    /// docs/node-api.md §1.4): strict where the bytes are signed, tolerant where node versions
    /// differ.
    package init(json reader: inout JSONReader) throws(JSONReadError) {
        var seen = SeenKeys<Key>()
        var key: String?
        var value: String?
        var type: Int32?
        try reader.readObject { reader, name throws(JSONReadError) in
            switch name {
            case "key":
                try seen.first(.key, reader)
                key = try reader.readOptionalString()
            case "value":
                try seen.first(.value, reader)
                value = try reader.readString()
            case "type":
                try seen.first(.type, reader)
                let raw: Int64 = try reader.readInteger()
                guard let exact = Int32(exactly: raw) else {
                    throw reader.failure("\(reader.here): state type \(raw) is outside int32")
                }
                type = exact
            default: try reader.skipValue()
            }
        }
        guard let value else { throw reader.missing("value") }
        guard let type else { throw reader.missing("type") }
        self.init(key: key ?? "", value: value, type: type)
    }
}

/// The known keys an object has named so far, so a second naming is refused. `Key` lists a
/// reader's keys (fewer than 64), a bit each.
package struct SeenKeys<Key: RawRepresentable> where Key.RawValue == Int {
    private var bits: UInt64 = 0

    package init() {}

    /// Marks `key`, throwing if it was named before.
    package mutating func first(_ key: Key, _ reader: JSONReader) throws(JSONReadError) {
        let bit: UInt64 = 1 << UInt64(key.rawValue)
        guard bits & bit == 0 else { throw reader.twice }
        bits |= bit
    }
}

extension JSONReader {
    /// Nil for `null`, else what `read` reads.
    package mutating func readOptional<Value>(_ read: (inout JSONReader) throws(JSONReadError) -> Value)
        throws(JSONReadError) -> Value?
    {
        try readNull() ? nil : try read(&self)
    }

    /// Nil for `null`, else a string.
    package mutating func readOptionalString() throws(JSONReadError) -> String? {
        try readNull() ? nil : try readString()
    }

    /// Nil for `null`, else an integer (`readInteger`).
    package mutating func readOptionalInteger<T: FixedWidthInteger>(_: T.Type = T.self) throws(JSONReadError) -> T? {
        try readNull() ? nil : try readInteger()
    }

    /// Nil for `null`, else an integer as a number or a string (`readIntegerOrString`).
    package mutating func readOptionalIntegerOrString<T: FixedWidthInteger>(_: T.Type = T.self) throws(JSONReadError)
        -> T?
    {
        try readNull() ? nil : try readIntegerOrString()
    }

    /// Nil for `null`, else a string that spells a `T` (`readParsed`).
    package mutating func readOptionalParsed<T: StringCodable>(_ type: T.Type) throws(JSONReadError) -> T? {
        try readNull() ? nil : try readParsed(type)
    }

    /// A public key's 64 hex digits.
    mutating func readPublicKey() throws(JSONReadError) -> PublicKey {
        if let key = readString(parsingBytes: {
            ASCIIField.hex($0, length: PublicKey.length).flatMap { try? PublicKey(bytes: $0) }
        }) {
            return key
        }
        return try readParsed(PublicKey.self)
    }

    /// A string that spells a `T` (an address, a key, an id).
    package mutating func readParsed<T: StringCodable>(_: T.Type) throws(JSONReadError) -> T {
        let text = try readString()
        do { return try T(parsing: text) } catch { throw failure("\(here): \"\(text)\": \(error)") }
    }

    /// Canonical hex, of `length` bytes when given.
    package mutating func readHex(length: Int? = nil) throws(JSONReadError) -> [UInt8] {
        if let bytes = readString(parsingBytes: { ASCIIField.hex($0, length: length) }) { return bytes }
        let text = try readString()
        guard let bytes = length.map({ Hex.decode(text, length: $0) }) ?? Hex.decode(text) else {
            throw failure("\(here): not canonical hex")
        }
        return bytes
    }

    /// Optional canonical hex: null, absent and "" all mean none.
    mutating func readHexIfPresent(length: Int) throws(JSONReadError) -> [UInt8]? {
        guard kind != .null else {
            _ = try readNull()
            return nil
        }
        let text = try readString()
        guard !text.isEmpty else { return nil }
        guard let bytes = Hex.decode(text, length: length) else { throw failure("\(here): not canonical hex") }
        return bytes
    }
}

/// The fields nodes write as ASCII strings, parsed from their bytes by the rules their
/// `String` parsers follow (`Hex.decode`, `Address(_:)`, `TransactionID(_:)`): a read takes
/// these first, and what they refuse is read again as text, so that its error says why.
enum ASCIIField {
    /// Canonical hex (lowercase, even length), of `length` bytes when given.
    static func hex(_ digits: ArraySlice<UInt8>, length: Int?) -> [UInt8]? {
        guard digits.count % 2 == 0, length.map({ digits.count == $0 * 2 }) ?? true else { return nil }
        // One pass with no early exit and no optional per digit: a signature is 128 of them.
        var invalid: UInt8 = 0
        let bytes = digits.withUnsafeBufferPointer { text in
            [UInt8](unsafeUninitializedCapacity: text.count / 2) { buffer, initialized in
                for index in 0..<text.count / 2 {
                    let high = nibble(text[2 &* index])
                    let low = nibble(text[2 &* index &+ 1])
                    invalid |= high | low
                    buffer[index] = high << 4 | low & 0x0F
                }
                initialized = text.count / 2
            }
        }
        return invalid & 0xF0 == 0 ? bytes : nil
    }

    /// `U` and a canonical decimal.
    static func address(_ text: ArraySlice<UInt8>) -> Address? {
        guard text.first == UInt8(ascii: "U") else { return nil }
        return decimal(text.dropFirst()).map(Address.init(number:))
    }

    /// 1 to 20 digits, no leading zero, below 2^64.
    static func decimal(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard (1...20).contains(digits.count), digits.count == 1 || digits.first != UInt8(ascii: "0") else {
            return nil
        }
        var value: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    /// A lowercase hex digit's value; 0xF0 for any other byte.
    private static func nibble(_ character: UInt8) -> UInt8 {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character &- UInt8(ascii: "a") &+ 10
        default: 0xF0
        }
    }
}
