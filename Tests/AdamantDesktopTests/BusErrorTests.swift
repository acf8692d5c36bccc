@testable import AdamantDesktop
import Testing

/// Which bus failures are a refusal (asked again the same way, the same answer) and which a
/// service that is not there or not answering: a notification is given up only for the first.
@Suite struct BusErrorTests {
    @Test(arguments: [
        ("org.freedesktop.DBus.Error.InvalidArgs", true), ("org.freedesktop.DBus.Error.AccessDenied", true),
        ("org.freedesktop.Notifications.Error", true), ("org.freedesktop.DBus.Error.UnknownMethod", true),
        ("org.freedesktop.DBus.Error.ServiceUnknown", false), ("org.freedesktop.DBus.Error.NameHasNoOwner", false),
        ("org.freedesktop.DBus.Error.Timeout", false), ("org.freedesktop.DBus.Error.NoReply", false),
        ("org.freedesktop.DBus.Error.Disconnected", false), ("System.Error.ECONNRESET", false),
    ])
    func aRefusalIsAnAnswer(_ name: String, _ refused: Bool) {
        #expect(BusError("Notify failed", name: name).isRefusal == refused)
    }

    @Test func aFailureHereIsNoRefusal() {
        #expect(!BusError("the session bus connection was lost").isRefusal)
    }

    /// What sd-bus would otherwise call a refused connection.
    @Test(arguments: ["garbage", "unix", "unix:", ":path=/x", "unix:path", "unix:=x", "nonsense:path=/x", ";", ""])
    func notAnAddress(_ text: String) {
        #expect(!SessionBus.isAddress(text))
    }

    @Test(arguments: ["unix:path=/run/user/1000/bus", "unix:abstract=/tmp/dbus-x,guid=0123", "tcp:host=127.0.0.1,port=4000", "nonsense:a=b;unix:path=/x"])
    func anAddress(_ text: String) {
        #expect(SessionBus.isAddress(text))
    }
}
