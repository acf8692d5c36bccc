import Foundation
import Testing

@testable import AdamantBus

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

    @Test(arguments: [
        "unix:path=/run/user/1000/bus", "unix:abstract=/tmp/dbus-x,guid=0123", "tcp:host=127.0.0.1,port=4000",
        "nonsense:a=b;unix:path=/x",
    ])
    func anAddress(_ text: String) {
        #expect(SessionBus.isAddress(text))
    }

    /// A Unix socket's address holds a path of at most 107 bytes and an abstract name of at
    /// most 106, counted as sd-bus does, with each %XX one byte; a longer one is said as such,
    /// where sd-bus would say "Argument list too long".
    @Test func aSocketPathTooLongIsSaidAsSuch() throws {
        let path = { (bytes: Int) in "/tmp/" + String(repeating: "p", count: bytes - 5) }
        for address in [
            "unix:path=" + path(107), "unix:abstract=" + String(repeating: "a", count: 106),
            "unix:path=/tmp/%61" + String(repeating: "p", count: 101),
        ] {
            #expect(try SessionBus.address(in: ["DBUS_SESSION_BUS_ADDRESS": address]) == address)
        }
        for (address, said) in [
            (
                "unix:path=" + path(108),
                "the session bus path \(path(108)) is 108 bytes, too long for a Unix socket (at most 107)"
            ),
            ("tcp:host=x,port=1;unix:guid=00,path=" + path(200), "the session bus path \(path(200)) is 200 bytes"),
            (
                "unix:abstract=" + String(repeating: "a", count: 107),
                "the session bus's abstract socket name \(String(repeating: "a", count: 107)) is 107 bytes, too long for a Unix socket (at most 106)"
            ),
        ] {
            #expect { try SessionBus.address(in: ["DBUS_SESSION_BUS_ADDRESS": address]) } throws: {
                "\($0)".contains(said)
            }
        }
    }

    /// The same for the socket in XDG_RUNTIME_DIR.
    @Test func aRuntimeDirectoryTooLongForItsSocketIsSaidAsSuch() throws {
        let runtime = NSTemporaryDirectory() + String(repeating: "r", count: 110)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        #expect(FileManager.default.createFile(atPath: runtime + "/bus", contents: nil))
        #expect { try SessionBus.address(in: ["XDG_RUNTIME_DIR": runtime]) } throws: {
            "\($0)".contains("the session bus path \(runtime)/bus is")
        }
    }
}
