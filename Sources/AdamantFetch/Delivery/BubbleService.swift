import AdamantCore

/// Where bubbles go: the desktop's notification service, behind what the delivery needs of it.
/// One connection at a time; what happens to its bubbles comes in `events`.
public protocol BubbleService: Sendable {
    /// What the user or the service did, for as long as the service object lives.
    var events: AsyncStream<ServiceEvent> { get }
    /// Puts `bubble` on screen, or in place of the bubble it replaces; the service's id for it.
    func notify(_ bubble: NotificationDelivery.Bubble) async throws(ServiceFailure) -> UInt32
    /// Connects again (the last connection is gone); the server, in a phrase.
    func reconnect() async throws(ServiceFailure) -> String
}

/// What a chat's bubble offers, named on the bus by its raw value: the key a bubble lists and
/// the notification service sends back when the user picks it. The service sends the keys of
/// every program's bubbles to every listener, so a key that is none of these is some other
/// program's and is dropped where the signal is read.
public enum BubbleAction: String, Sendable, Hashable, CaseIterable {
    /// A click on the bubble itself, the specification's `default` action: opens the chat.
    case click = "default"
    /// "Open": opens the chat too, for servers that show actions as buttons and send no click.
    case open
    /// "Mute 1 hour": the chat's notifications stop for `NotificationDelivery.muteSpan`.
    case mute = "mute-1h"
}

/// What happens to the bubbles, or to the service.
public enum ServiceEvent: Sendable, Hashable {
    /// The user picked `action` on the bubble `id`.
    case invoked(id: UInt32, action: BubbleAction)
    /// The bubble `id` is gone for `reason`.
    case closed(id: UInt32, reason: UInt32)
    /// The connection is gone; nothing more comes from it.
    case lost(String)

    /// The delivery's event for it.
    var event: NotificationDelivery.Event {
        switch self {
        case .invoked(let id, let action): .invoked(id: id, action: action)
        case .closed(let id, let reason): .closed(id: id, reason: reason)
        case .lost(let reason): .lost(reason)
        }
    }
}

/// Why the service did not take a bubble.
public enum ServiceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// It answered with an error: the same bubble is likely refused again.
    case refused(String)
    /// It could not be reached: it is away, or the bus is.
    case unreachable(String)

    /// The reason, as the service or the bus gave it.
    public var description: String {
        switch self {
        case .refused(let reason), .unreachable(let reason): reason
        }
    }
}
