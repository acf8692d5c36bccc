/// A session bus failure, in a sentence.
public struct BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error the peer answered with (`org.freedesktop.DBus.Error.ServiceUnknown`),
    /// nil when the failure was here: no bus, a lost connection, a malformed answer.
    public let name: String?
    /// What failed.
    public let description: String

    init(_ description: String, name: String? = nil) {
        self.description = description
        self.name = name
    }

    /// From an sd-bus return value (a negated errno).
    init(_ what: String, status: Int32) {
        self.init("\(what): \(String(cString: strerror(-status)))")
    }

    /// Nobody owns the name called.
    public var isServiceUnknown: Bool { name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner" }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
