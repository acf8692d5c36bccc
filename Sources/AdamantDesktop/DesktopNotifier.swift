internal import AdamantBus
public import AdamantFetch
import Synchronization

/// The desktop's notification service as a `BubbleService`: a delivery's bubbles go out
/// as `Notify` calls over sd-bus, and what the user does to them comes back as events. It
/// decides nothing: which bubble, when, and what to do when the service is away is the
/// delivery's.
public final class DesktopNotifier: BubbleService {
    /// What the bubbles say and do besides the notification's own text.
    public struct Appearance: Sendable, Hashable {
        /// The app's name on every bubble.
        public var appName = "ADAMANT"
        /// An icon's name or absolute path; empty for none.
        public var icon = ""
        /// The installed `.desktop` file, without `.desktop`.
        public var desktopEntry = "adm-push"
        /// A sound of the freedesktop sound theme, for servers that play one.
        public var soundName = "message-new-instant"
        /// The words of the actions.
        public var wording = Wording.english

        /// The app's defaults.
        public init() {}
    }

    /// What the user does to the bubbles, and the connection's loss: of the current connection
    /// only, since an older one's bubble ids mean nothing to the delivery any more.
    public let events: AsyncStream<ServiceEvent>
    private let continuation: AsyncStream<ServiceEvent>.Continuation
    private let environment: [String: String]
    private let appearance: Appearance
    /// The connection, and how many were made: events of an older one are not passed on.
    private let connection = Mutex<(service: DesktopNotifications?, generation: Int)>((nil, 0))

    /// A notifier connected to the notification service of the session bus `environment`
    /// names; throws, naming what is missing, when there is none.
    public static func connect(
        environment: [String: String], _ appearance: Appearance = Appearance()
    ) async throws(DesktopUnavailable) -> DesktopNotifier {
        let notifier = DesktopNotifier(environment, appearance)
        try await notifier.connectAgain()
        return notifier
    }

    private init(_ environment: [String: String], _ appearance: Appearance) {
        (self.environment, self.appearance) = (environment, appearance)
        (events, continuation) = AsyncStream.makeStream()
    }

    deinit { continuation.finish() }

    /// The server, while connected.
    public var server: NotificationServer? { connection.withLock { $0.service?.server } }

    /// Sends `bubble` as a `Notify` call; an error answer is a refusal, and anything else
    /// (no bus, no service) leaves the service away until `reconnect`.
    public func notify(_ bubble: NotificationDelivery.Bubble) async throws(ServiceFailure) -> UInt32 {
        guard let service = connection.withLock({ $0.service }) else {
            throw .unreachable(DesktopUnavailable.noService.description)
        }
        do throws(BusError) {
            return try await service.notify(
                Self.bubble(
                    for: bubble.presentation, count: bubble.count, server: service.server, appearance: appearance,
                    actions: bubble.actions),
                replacing: bubble.replacing)
        } catch  where error.isRefusal {
            throw .refused(error.description)
        } catch {
            connection.withLock { if $0.service === service { $0.service = nil } }
            throw .unreachable(error.isServiceUnknown ? DesktopUnavailable.noService.description : error.description)
        }
    }

    /// Makes a new connection in place of the last; the server, as it describes itself.
    public func reconnect() async throws(ServiceFailure) -> String {
        do throws(DesktopUnavailable) { try await connectAgain() } catch {
            throw error.isRefusal ? .refused(error.description) : .unreachable(error.description)
        }
        return server?.description ?? ""
    }

    private func connectAgain() async throws(DesktopUnavailable) {
        let generation = connection.withLock { state in
            state.service = nil  // its bus connection closes as it goes
            state.generation += 1
            return state.generation
        }
        let continuation = self.continuation
        let current = { @Sendable [weak self] in self?.connection.withLock { $0.generation } == generation }
        let connected = try await DesktopNotifications.connect(environment: environment) { event in
            guard current(), let event = Self.serviceEvent(event) else { return }
            continuation.yield(event)
        }
        connection.withLock { state in
            if state.generation == generation { state.service = connected }
        }
    }

    /// The delivery's event for what the bus said; nil for the pick of an action that is not
    /// one of ours: the service sends every program's to every listener.
    static func serviceEvent(_ event: DesktopNotifications.Event) -> ServiceEvent? {
        switch event {
        case .actionInvoked(let id, let key): BubbleAction(rawValue: key).map { .invoked(id: id, action: $0) }
        case .closed(let id, let reason): .closed(id: id, reason: reason)
        case .lost(let error): .lost(error.description)
        }
    }
}
