internal import CSDBus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The types the Secret Service answers in: byte arrays, object paths, booleans, dictionaries,
/// structures and variants. Each read checks the type, as the others do.
extension BusReader {
    package func boolean() throws(BusError) -> Bool {
        // D-Bus booleans are 32-bit; sd-bus writes an int.
        var value: Int32 = 0
        let status = csd_bus_message_read_basic(message, BusValue.code("b"), &value)
        guard status > 0 else { throw Self.missing("a boolean", status) }
        return value != 0
    }

    package func objectPath() throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        let status = csd_bus_message_read_basic(message, BusValue.code("o"), &value)
        guard status > 0, let value else { throw Self.missing("an object path", status) }
        return String(cString: value)
    }

    /// `ay`, copied out of the message.
    package func bytes() throws(BusError) -> [UInt8] {
        try withBytes { Array($0) }
    }

    /// `ay`, handed to `body` where the message holds it, so a secret read from a plain
    /// session is copied only where the caller puts it.
    package func withBytes<Value>(_ body: (UnsafeRawBufferPointer) -> Value) throws(BusError) -> Value {
        var pointer: UnsafeRawPointer?
        var size = 0
        let status = csd_bus_message_read_array(message, BusValue.code("y"), &pointer, &size)
        guard status > 0 else { throw Self.missing("an array of bytes", status) }
        return body(UnsafeRawBufferPointer(start: size > 0 ? pointer : nil, count: size))
    }

    /// `ao`
    package func objectPaths() throws(BusError) -> [String] {
        let what = "an array of object paths"
        return try enter("a", "o", what) { () throws(BusError) in
            var paths: [String] = []
            while true {
                var value: UnsafePointer<CChar>?
                let status = csd_bus_message_read_basic(message, BusValue.code("o"), &value)
                if status == 0 { break }  // the array's end
                guard status > 0, let value else { throw Self.missing(what, status) }
                paths.append(String(cString: value))
            }
            return paths
        }
    }

    /// `a{ss}`
    package func stringPairs() throws(BusError) -> [String: String] {
        var pairs: [String: String] = [:]
        for (key, value) in try dictionary(
            "ss", "a dictionary of strings",
            { reader throws(BusError) in
                (try reader.string(), try reader.string())
            })
        {
            pairs[key] = value
        }
        return pairs
    }

    /// `a{…}`, whose entries hold `entry` (a key and a value, `ss` or `o(oayays)`), each read
    /// by `read` inside its entry.
    package func dictionary<Entry>(
        _ entry: String, _ what: String, _ read: (BusReader) throws(BusError) -> Entry
    ) throws(BusError) -> [Entry] {
        try enter("a", "{" + entry + "}", what) { () throws(BusError) in
            var entries: [Entry] = []
            while true {
                let entered = csd_bus_message_enter_container(message, BusValue.code("e"), entry)
                if entered == 0 { break }
                guard entered > 0 else { throw Self.missing(what, entered) }
                entries.append(try read(self))
                let exited = csd_bus_message_exit_container(message)
                guard exited >= 0 else { throw Self.missing(what, exited) }
            }
            return entries
        }
    }

    /// A structure of `fields` (`oayays`), read by `read` inside it.
    package func structure<Value>(_ fields: String, _ what: String, _ read: (BusReader) throws(BusError) -> Value)
        throws(BusError) -> Value
    {
        try enter("r", fields, what) { () throws(BusError) in try read(self) }
    }

    /// A variant that must hold `contents` (a single complete type), read by `read`.
    package func variant<Value>(_ contents: String, _ what: String, _ read: (BusReader) throws(BusError) -> Value)
        throws(BusError) -> Value
    {
        try enter("v", contents, what) { () throws(BusError) in try read(self) }
    }

    private func enter<Value>(
        _ type: Character, _ contents: String, _ what: String, _ body: () throws(BusError) -> Value
    ) throws(BusError) -> Value {
        let entered = csd_bus_message_enter_container(message, BusValue.code(type), contents)
        guard entered > 0 else { throw Self.missing(what, entered) }
        let value = try body()
        let exited = csd_bus_message_exit_container(message)
        guard exited >= 0 else { throw Self.missing(what, exited) }
        return value
    }

    private static func missing(_ expected: String, _ status: Int32) -> BusError {
        status < 0
            ? BusError("the answer could not be read as \(expected)", status: status)
            : BusError("the answer holds no \(expected) where one belongs")
    }
}
