internal import CSDBus

/// An argument of a method call, in the D-Bus types the notification interface and the Secret
/// Service use.
package indirect enum BusValue: Sendable, Hashable {
    case string(String)
    case uint32(UInt32)
    case int32(Int32)
    case byte(UInt8)
    case boolean(Bool)
    /// `as`
    case strings([String])
    /// `a{sv}`: a hints dictionary, each value in a variant.
    case variants([String: BusValue])
    /// `ay`
    case bytes([UInt8])
    /// `o`: the caller vouches that it is an object path (`/` and `[A-Za-z0-9_]` elements).
    case objectPath(String)
    /// `ao`
    case objectPaths([String])
    /// `a{ss}`: the Secret Service's attributes.
    case stringPairs([String: String])
    /// `v`
    case variant(BusValue)
    /// A structure of its fields, in order: `(oayays)` for a secret.
    case structure([BusValue])

    /// The value's D-Bus signature.
    package var signature: String {
        switch self {
        case .string: "s"
        case .uint32: "u"
        case .int32: "i"
        case .byte: "y"
        case .boolean: "b"
        case .strings: "as"
        case .variants: "a{sv}"
        case .bytes: "ay"
        case .objectPath: "o"
        case .objectPaths: "ao"
        case .stringPairs: "a{ss}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// Appends it to `message`; the sd-bus status, negative on failure.
    func append(to message: OpaquePointer) -> Int32 {
        switch self {
        case .string(let text):
            return Self.carried(text).withCString { csd_bus_message_append_basic(message, Self.code("s"), $0) }
        case .uint32(var value):
            return csd_bus_message_append_basic(message, Self.code("u"), &value)
        case .int32(var value):
            return csd_bus_message_append_basic(message, Self.code("i"), &value)
        case .byte(var value):
            return csd_bus_message_append_basic(message, Self.code("y"), &value)
        case .boolean(let flag):
            // D-Bus booleans are 32-bit; sd-bus reads an int.
            var value: Int32 = flag ? 1 : 0
            return csd_bus_message_append_basic(message, Self.code("b"), &value)
        case .strings(let texts):
            return Self.container(message, "a", "s") {
                texts.lazy.map { BusValue.string($0).append(to: message) }.first { $0 < 0 } ?? 0
            }
        case .variants(let entries):
            return Self.container(message, "a", "{sv}") {
                // Sorted, so a message is the same bytes every time (and in a capture).
                for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
                    let status = Self.container(message, "e", "sv") {
                        let status = BusValue.string(key).append(to: message)
                        guard status >= 0 else { return status }
                        return Self.container(message, "v", value.signature) { value.append(to: message) }
                    }
                    guard status >= 0 else { return status }
                }
                return 0
            }
        case .bytes(let bytes):
            return bytes.withUnsafeBytes {
                csd_bus_message_append_array(message, Self.code("y"), $0.baseAddress, $0.count)
            }
        case .objectPath(let path):
            return path.withCString { csd_bus_message_append_basic(message, Self.code("o"), $0) }
        case .objectPaths(let paths):
            return Self.container(message, "a", "o") {
                paths.lazy.map { BusValue.objectPath($0).append(to: message) }.first { $0 < 0 } ?? 0
            }
        case .stringPairs(let pairs):
            return Self.container(message, "a", "{ss}") {
                pairs.sorted { $0.key < $1.key }.lazy.map { key, value in
                    Self.container(message, "e", "ss") {
                        let status = BusValue.string(key).append(to: message)
                        return status < 0 ? status : BusValue.string(value).append(to: message)
                    }
                }.first { $0 < 0 } ?? 0
            }
        case .variant(let value):
            return Self.container(message, "v", value.signature) { value.append(to: message) }
        case .structure(let fields):
            return Self.container(message, "r", String(signature.dropFirst().dropLast())) {
                fields.lazy.map { $0.append(to: message) }.first { $0 < 0 } ?? 0
            }
        }
    }

    /// `text` as a D-Bus string carries it, each scalar it cannot carry U+FFFD: a NUL, which
    /// would end the string there, hiding what follows, and the noncharacters (U+FFFE, U+FFFF,
    /// U+FDD0 to U+FDEF, and the last two of every plane), which sd-bus refuses, failing the
    /// whole call. A sender's text holding one is still shown, and holds up no call after it.
    private static func carried(_ text: String) -> String {
        let cannot = { (scalar: Unicode.Scalar) in scalar == "\0" || scalar.properties.isNoncharacterCodePoint }
        guard text.unicodeScalars.contains(where: cannot) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.lazy.map { cannot($0) ? "\u{FFFD}" : $0 }))
    }

    private static func container(_ message: OpaquePointer, _ type: Character, _ contents: String, _ body: () -> Int32)
        -> Int32
    {
        let opened = contents.withCString { csd_bus_message_open_container(message, code(type), $0) }
        guard opened >= 0 else { return opened }
        let status = body()
        guard status >= 0 else { return status }
        return csd_bus_message_close_container(message)
    }

    static func code(_ type: Character) -> CChar { CChar(bitPattern: type.asciiValue!) }
}

/// Reads a message's arguments in order; every read checks the type, so a peer's malformed
/// answer is an error, never a trap.
package struct BusReader {
    let message: OpaquePointer

    package func string() throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        let status = csd_bus_message_read_basic(message, BusValue.code("s"), &value)
        guard status > 0, let value else { throw Self.malformed("a string", status) }
        return String(cString: value)
    }

    package func uint32() throws(BusError) -> UInt32 {
        var value: UInt32 = 0
        let status = csd_bus_message_read_basic(message, BusValue.code("u"), &value)
        guard status > 0 else { throw Self.malformed("an unsigned integer", status) }
        return value
    }

    package func strings() throws(BusError) -> [String] {
        let entered = csd_bus_message_enter_container(message, BusValue.code("a"), "s")
        guard entered > 0 else { throw Self.malformed("an array of strings", entered) }
        var texts: [String] = []
        while true {
            var value: UnsafePointer<CChar>?
            let status = csd_bus_message_read_basic(message, BusValue.code("s"), &value)
            if status == 0 { break }
            guard status > 0, let value else { throw Self.malformed("an array of strings", status) }
            texts.append(String(cString: value))
        }
        let exited = csd_bus_message_exit_container(message)
        guard exited >= 0 else { throw Self.malformed("an array of strings", exited) }
        return texts
    }

    private static func malformed(_ expected: String, _ status: Int32) -> BusError {
        status < 0
            ? BusError("the answer could not be read as \(expected)", status: status)
            : BusError("the answer holds no \(expected) where one belongs")
    }
}
