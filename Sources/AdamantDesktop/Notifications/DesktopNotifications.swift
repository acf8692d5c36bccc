public import AdamantBus

/// The desktop's notification service, `org.freedesktop.Notifications` on the session bus
/// (the Desktop Notifications Specification 1.2): what it can do, `Notify`, and the signals
/// that say what the user did. A bubble leaves the screen by the user or by its server's
/// timeout, never by a call: the chat's next bubble replaces it.
public final class DesktopNotifications: Sendable {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    /// Who serves notifications here, as `GetServerInformation` says.
    public let server: NotificationServer
    private let bus: SessionBus

    /// What the user or the server did to a notification.
    public enum Event: Sendable, Hashable {
        /// The user picked the action with this key (`default` is a click on the bubble).
        case actionInvoked(id: UInt32, key: String)
        /// The bubble is gone: expired (1), dismissed by the user (2), closed by a call (3),
        /// or otherwise (4).
        case closed(id: UInt32, reason: UInt32)
        /// The bus connection is gone; nothing more comes from this one.
        case lost(BusError)
    }

    /// Connects to the session bus `environment` names and asks its notification service
    /// what it is and can do; `events` gets what happens to the bubbles from then on. Throws
    /// when there is no session bus, or no service on it.
    public static func connect(
        environment: [String: String], events: @escaping @Sendable (Event) -> Void
    ) async throws(DesktopUnavailable) -> DesktopNotifications {
        let bus: SessionBus
        do { bus = try await SessionBus.connect(address: try SessionBus.address(in: environment)) } catch {
            throw .noSessionBus(error)
        }
        bus.onLoss { events(.lost($0)) }
        do {
            // Taken only from the server that answers the calls below: see SessionBus.
            try await bus.subscribe(to: name, path: path, interface: name) { member, arguments in
                switch member {
                case "ActionInvoked":
                    guard let id = try? arguments.uint32(), let key = try? arguments.string() else { return }
                    events(.actionInvoked(id: id, key: key))
                case "NotificationClosed":
                    guard let id = try? arguments.uint32(), let reason = try? arguments.uint32() else { return }
                    events(.closed(id: id, reason: reason))
                default:
                    return  // ActivationToken and whatever a later specification adds
                }
            }
        } catch {
            throw .noSessionBus(error)
        }
        let server: NotificationServer
        do {
            let information = try await bus.call(name, path, name, "GetServerInformation", []) {
                reader throws(BusError) in
                (try reader.string(), try reader.string(), try reader.string(), try reader.string())
            }
            let capabilities = try await bus.call(name, path, name, "GetCapabilities", []) { reader throws(BusError) in
                try reader.strings()
            }
            server = NotificationServer(
                name: information.0, vendor: information.1, version: information.2, specificationVersion: information.3,
                capabilities: Set(capabilities))
        } catch {
            throw error.isServiceUnknown ? .noService : .serviceFailed(error)
        }
        return DesktopNotifications(server: server, bus: bus)
    }

    private init(server: NotificationServer, bus: SessionBus) {
        self.server = server
        self.bus = bus
    }

    /// Shows `bubble`, in place of the notification `replacing` when it is not 0; the
    /// server's id for it.
    public func notify(_ bubble: DesktopBubble, replacing: UInt32 = 0) async throws(BusError) -> UInt32 {
        let arguments: [BusValue] = [
            .string(bubble.appName), .uint32(replacing), .string(bubble.icon), .string(bubble.summary),
            .string(bubble.body),
            .strings(bubble.actions.flatMap { [$0.key, $0.label] }), .variants(bubble.hints.busValues),
            .int32(bubble.timeout),
        ]
        return try await bus.call(Self.name, Self.path, Self.name, "Notify", arguments) { reader throws(BusError) in
            try reader.uint32()
        }
    }
}

/// The notification server, from `GetServerInformation` and `GetCapabilities`.
public struct NotificationServer: Sendable, Hashable, CustomStringConvertible {
    /// Its product name (`dunst`, `gnome-shell`, `Plasma`).
    public let name: String
    /// Who makes it.
    public let vendor: String
    /// Its version.
    public let version: String
    /// The version of the specification it follows.
    public let specificationVersion: String
    /// What it can do: `actions`, `body`, `body-markup`, `persistence`, `sound`, …
    public let capabilities: Set<String>

    /// Creates a description of a server.
    public init(name: String, vendor: String, version: String, specificationVersion: String, capabilities: Set<String>)
    {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.specificationVersion = specificationVersion
        self.capabilities = capabilities
    }

    /// `dunst 1.9.0 (actions, body, body-markup)`
    public var description: String { "\(name) \(version) (\(capabilities.sorted().joined(separator: ", ")))" }
}

/// Why notifications cannot reach this desktop.
public enum DesktopUnavailable: Error, Sendable, CustomStringConvertible {
    /// No session bus could be reached (or libsystemd is missing).
    case noSessionBus(BusError)
    /// The bus has no notification service and cannot start one.
    case noService
    /// The service answered with an error.
    case serviceFailed(BusError)

    /// The service answered with an error: asking the same again is likely refused again.
    public var isRefusal: Bool {
        if case .serviceFailed(let error) = self { error.isRefusal } else { false }
    }

    /// What is missing, in a sentence.
    public var description: String {
        switch self {
        case .noSessionBus(let error): error.description
        case .noService:
            "no notification service on the session bus (nothing owns org.freedesktop.Notifications): start the desktop's own, or one such as dunst"
        case .serviceFailed(let error): "the notification service failed: \(error)"
        }
    }
}
