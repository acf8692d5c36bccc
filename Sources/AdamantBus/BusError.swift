/// A session bus failure, in a sentence.
public struct BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error the peer answered with (`org.freedesktop.DBus.Error.ServiceUnknown`),
    /// nil when the failure was here: no bus, a lost connection, a malformed answer.
    public let name: String?
    /// What failed.
    public let description: String

    package init(_ description: String, name: String? = nil) {
        self.description = description
        self.name = name
    }

    /// From an sd-bus return value (a negated errno).
    package init(_ what: String, status: Int32) {
        self.init("\(what): \(String(cString: strerror(-status)))")
    }

    /// Nobody owns the name called.
    public var isServiceUnknown: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    /// The call was answered, with an error (InvalidArgs, AccessDenied, a server's own):
    /// the same call is likely refused again. Not so when nobody answered: no service, no
    /// answer in time, a lost connection, or what sd-bus names after an errno.
    public var isRefusal: Bool {
        guard let name, !isServiceUnknown, !name.hasPrefix("System.Error.") else { return false }
        return !Self.unanswered.contains(name)
    }

    private static let unanswered: Set<String> = [
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
        "org.freedesktop.DBus.Error.TimedOut",
        "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoServer",
        "org.freedesktop.DBus.Error.NoNetwork",
    ]
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
