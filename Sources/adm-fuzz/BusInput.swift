import AdamantBus

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
///     Y       `ay`: a count byte, then that many bytes
///     o       `o`: a text as after `s`, made an object path (each byte a letter, digit, `_` or
///             `/`, empty elements dropped)
///     O       `ao`: a count byte, then that many paths as after `o`
///     p       `a{ss}`: a count byte, then that many keys and values as after `s` (a key
///             repeated as D-Bus carries it counts once)
///     v       `v`: one value, any of these (nested `depth` deep, an empty string)
///     r       a structure: a count byte (0 counts as 1), then that many values
///     reads   s: `string()`, u: `uint32()`, a: `strings()`, b: `boolean()`, Y: `bytes()`,
///             o: `objectPath()`, O: `objectPaths()`, p: `stringPairs()`, v: a variant of
///             `ay`, r: a secret `(oayays)`, as the keyring reads them; other bytes are skipped
///
/// Bytes missing at the end count as zeros. A message's signature holds at most 255 letters
/// (D-Bus's limit, whatever the peer), so the values end before the one that would pass it.
struct BusInput {
    enum Read: Character, CaseIterable {
        case string = "s"
        case uint32 = "u"
        case strings = "a"
        case boolean = "b"
        case bytes = "Y"
        case objectPath = "o"
        case objectPaths = "O"
        case stringPairs = "p"
        case variantOfBytes = "v"
        case secret = "r"
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
        case .bytes(let bytes): return Array("Y".utf8) + [UInt8(bytes.count)] + bytes
        case .objectPath(let path): return Array("o".utf8) + text(path)
        case .objectPaths(let paths): return Array("O".utf8) + [UInt8(paths.count)] + paths.flatMap(text)
        case .stringPairs(let pairs):
            return Array("p".utf8) + [UInt8(pairs.count)]
                + pairs.sorted { $0.key < $1.key }.flatMap { text($0.key) + text($0.value) }
        case .variant(let value): return Array("v".utf8) + encode(value)
        case .structure(let fields): return Array("r".utf8) + [UInt8(fields.count)] + fields.flatMap(encode)
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
        case "Y":
            _ = byte()
            let count = Int(byte())
            defer { rest = rest.dropFirst(count) }
            return .bytes(Array(rest.prefix(count)) + [UInt8](repeating: 0, count: max(0, count - rest.count)))
        case "o":
            _ = byte()
            return .objectPath(Self.path(text()))
        case "O":
            _ = byte()
            return .objectPaths((0..<byte()).map { _ in Self.path(text()) })
        case "p":
            _ = byte()
            var pairs: [String: String] = [:]
            for _ in 0..<byte() {
                let (key, value) = (BusFuzz.carried(text()), BusFuzz.carried(text()))
                if pairs[key] == nil { pairs[key] = value }
            }
            return .stringPairs(pairs)
        case "v":
            _ = byte()
            guard depth < BusInput.depth, let value = value(depth: depth + 1) else { return .variant(.string("")) }
            return .variant(value)
        case "r":
            _ = byte()
            let count = max(1, Int(byte()))
            var fields: [BusValue] = []
            if depth < BusInput.depth {
                for _ in 0..<count {
                    guard let field = value(depth: depth + 1) else { break }
                    fields.append(field)
                }
            }
            return .structure(fields.isEmpty ? [.string("")] : fields)
        default: return nil
        }
    }

    /// Any text as an object path: `/` and elements of `[A-Za-z0-9_]`, none empty.
    static func path(_ text: String) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/")
        let mapped = String(text.utf8.map { alphabet[Int($0) % alphabet.count] })
        return "/" + mapped.split(separator: "/").joined(separator: "/")
    }
}
