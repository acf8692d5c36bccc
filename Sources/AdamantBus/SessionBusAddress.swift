#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the session bus is, and whether sd-bus can use that.
extension SessionBus {
    /// The session bus's address in `environment`: `DBUS_SESSION_BUS_ADDRESS`, else the
    /// socket `bus` in `XDG_RUNTIME_DIR` (where systemd's user session puts it).
    package static func address(in environment: [String: String]) throws(BusError) -> String {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            // sd-bus skips what it cannot parse and then says "Connection refused".
            guard isAddress(address) else {
                throw BusError(
                    "DBUS_SESSION_BUS_ADDRESS '\(address.prefix(200))' is not a D-Bus address (one such as unix:path=/run/user/1000/bus): correct it, or unset it to use $XDG_RUNTIME_DIR/bus"
                )
            }
            if let failure = socketTooLong(in: address) { throw BusError(failure) }
            return address
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let socket = runtime + "/bus"
            guard access(socket, F_OK) == 0 else {
                throw BusError(
                    "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and \(socket) does not exist (is this a desktop session?)"
                )
            }
            if let failure = socketTooLong(in: "unix:path=" + socket) { throw BusError(failure) }
            return "unix:path=" + socket
        }
        throw BusError(
            "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set (is this a desktop session?)")
    }

    /// Whether `text` is a list of D-Bus addresses (`transport:key=value,…`, `;` between
    /// them), at least one of a transport sd-bus speaks.
    package static func isAddress(_ text: String) -> Bool {
        let entries = text.split(separator: ";")
        guard !entries.isEmpty else { return false }
        var usable = false
        for entry in entries {
            guard let colon = entry.firstIndex(of: ":"), colon != entry.startIndex else { return false }
            let pairs = entry[entry.index(after: colon)...].split(separator: ",")
            guard !pairs.isEmpty,
                pairs.allSatisfy({
                    $0.split(separator: "=", omittingEmptySubsequences: false).count == 2 && !$0.hasPrefix("=")
                })
            else { return false }
            if transports.contains(String(entry[..<colon])) { usable = true }
        }
        return usable
    }

    private static let transports: Set<String> = ["unix", "tcp", "unixexec", "x-machine-unix", "x-container-unix"]

    /// Why a socket `address` names cannot be connected to, when its path is longer than a Unix
    /// socket's address holds (108 bytes: a path and its NUL, or an abstract name with a NUL
    /// before and after it); nil when none is. sd-bus says only "Argument list too long".
    package static func socketTooLong(in address: String) -> String? {
        for entry in address.split(separator: ";") where entry.hasPrefix("unix:") {
            for pair in entry.dropFirst("unix:".count).split(separator: ",") {
                let (key, value) = (pair.prefix { $0 != "=" }, pair.drop { $0 != "=" }.dropFirst())
                let bytes = unescapedCount(value)
                switch key {
                case "path" where bytes > 107:
                    return
                        "the session bus path \(value) is \(bytes) bytes, too long for a Unix socket (at most 107): set DBUS_SESSION_BUS_ADDRESS to a shorter one (a symbolic link to the socket will do)"
                case "abstract" where bytes > 106:
                    return
                        "the session bus's abstract socket name \(value) is \(bytes) bytes, too long for a Unix socket (at most 106): correct DBUS_SESSION_BUS_ADDRESS"
                default: continue
                }
            }
        }
        return nil
    }

    /// How many bytes an address's `value` stands for: each `%XX` is one.
    private static func unescapedCount(_ value: Substring) -> Int {
        let bytes = Array(value.utf8)
        let isHex = { (byte: UInt8) in Character(Unicode.Scalar(byte)).isHexDigit }
        var (index, count) = (0, 0)
        while index < bytes.count {
            let escaped =
                bytes[index] == UInt8(ascii: "%") && index + 2 < bytes.count && isHex(bytes[index + 1])
                && isHex(bytes[index + 2])
            index += escaped ? 3 : 1
            count += 1
        }
        return count
    }
}
