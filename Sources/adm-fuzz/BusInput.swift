import AdamantDesktop

/// The bus target's input: a kind byte, then values, each its D-Bus letter and its bytes, then
/// any byte that is no value's letter (`|` in the seeds), then the reads, a letter each.
///
///     kind    bit 0: the answer to a call, else a signal; the bits above pick the member
///     s       a length byte, then that many bytes of text (any bytes: Swift repairs bad UTF-8)
///     u i     four bytes, little-endian
///     y b     one byte (a boolean is its bit 0)
///     a       `as`: a count byte, then that many texts, each as after `s`
///     {       `a{sv}`: a count byte, then that many keys (each as after `s`) and values, each
///             any of these; a map ends early at a byte that is no value's letter, and one
///             nested `depth` deep is empty
///     reads   s: `string()`, u: `uint32()`, a: `strings()`; other bytes are skipped
///
/// Bytes missing at the end count as zeros. A message's signature holds at most 255 letters
/// (D-Bus's limit, whatever the peer), so the values end before the one that would pass it.
struct BusInput {
    enum Read: Character, CaseIterable {
        case string = "s"
        case uint32 = "u"
        case strings = "a"
    }

    static let signals = ["ActionInvoked", "NotificationClosed"]
    static let replies = ["Notify", "GetServerInformation", "GetCapabilities"]
    /// How deep maps nest in a map.
    static let depth = 3
    static let signatureLimit = 255

    var kind: PeerMessage.Kind
    var values: [BusValue] = []
    var reads: [Read] = []

    init(_ data: [UInt8]) {
        var bytes = Bytes(data[...])
        let kind = Int(bytes.byte())
        self.kind =
            kind & 1 == 1
            ? .reply(to: Self.replies[(kind >> 1) % Self.replies.count])
            : .signal(member: Self.signals[(kind >> 1) % Self.signals.count])
        var letters = 0
        while let value = bytes.value(depth: 0), letters + value.signature.count <= Self.signatureLimit {
            values.append(value)
            letters += value.signature.count
        }
        reads = bytes.rest.compactMap { Read(rawValue: Character(Unicode.Scalar($0))) }
    }

    /// The input that decodes to `values` and `reads`, with `kind` its first byte.
    static func encode(_ kind: UInt8, _ values: [BusValue], reads: String) -> [UInt8] {
        [kind] + values.flatMap(encode) + Array("|\(reads)".utf8)
    }

    private static func encode(_ value: BusValue) -> [UInt8] {
        func text(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        switch value {
        case .string(let value): return Array("s".utf8) + text(value)
        case .uint32(let value): return Array("u".utf8) + littleEndian(value)
        case .int32(let value): return Array("i".utf8) + littleEndian(UInt32(bitPattern: value))
        case .byte(let value): return Array("y".utf8) + [value]
        case .boolean(let value): return Array("b".utf8) + [value ? 1 : 0]
        case .strings(let values): return Array("a".utf8) + [UInt8(values.count)] + values.flatMap(text)
        case .variants(let entries):
            return Array("{".utf8) + [UInt8(entries.count)]
                + entries.sorted { $0.key < $1.key }.flatMap { text($0.key) + encode($0.value) }
        case .bytes, .objectPath, .objectPaths, .stringPairs, .variant, .structure:
            // The Secret Service's types: this target reads the notification service's alone.
            preconditionFailure("the bus target's input has no letter for \(value.signature)")
        }
    }
}

/// The input read from the front.
private struct Bytes {
    var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func byte() -> UInt8 { rest.popFirst() ?? 0 }

    mutating func text() -> String {
        let count = Int(byte())
        defer { rest = rest.dropFirst(count) }
        return String(decoding: rest.prefix(count), as: UTF8.self)
    }

    mutating func word() -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(byte()) << ($1 * 8) } }

    /// The next value; nil, taking nothing, at a byte that is no value's letter or the end.
    mutating func value(depth: Int) -> BusValue? {
        switch rest.first.map({ Character(Unicode.Scalar($0)) }) {
        case "s":
            _ = byte()
            return .string(text())
        case "u":
            _ = byte()
            return .uint32(word())
        case "i":
            _ = byte()
            return .int32(Int32(bitPattern: word()))
        case "y":
            _ = byte()
            return .byte(byte())
        case "b":
            _ = byte()
            return .boolean(byte() & 1 == 1)
        case "a":
            _ = byte()
            return .strings((0..<byte()).map { _ in text() })
        case "{":
            _ = byte()
            let count = byte()
            var entries: [String: BusValue] = [:]
            guard depth < BusInput.depth else { return .variants(entries) }
            for _ in 0..<count {
                let key = text()
                guard let value = value(depth: depth + 1) else { break }
                entries[key] = value
            }
            return .variants(entries)
        default: return nil
        }
    }
}
