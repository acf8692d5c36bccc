import AdamantCore
public import AdamantFetch

/// `--notify`: each notification as a desktop bubble, one per chat, with its actions. A
/// service that goes away is connected to again at the next notification; the ones it could
/// not take wait, in order, and are shown when it is back.
public actor DesktopNotifier {
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
        /// Bubbles offer "Open" (and a click opens): only a process that stays to hear the
        /// click should.
        public var actions = true

        /// The app's defaults.
        public init() {}
    }

    /// What the user asked for on a bubble.
    public enum Request: Sendable, Hashable {
        /// A click or "Open": show the chat.
        case open(ChatBubbles.Chat)
    }

    /// Undelivered bubbles kept while the service is away; beyond this the oldest are dropped
    /// (each is still in the watch's journal as shown, and in `--json` and `--exec`).
    public static let maximumWaiting = 100
    /// How often a process that stays asks a service that went away again.
    public static let retryInterval: Duration = .seconds(10)
    static let openKey = "open"

    private let environment: [String: String]
    private let appearance: Appearance
    private let requests: @Sendable (Request) async -> Void
    private let log: @Sendable (String) -> Void
    private var service: DesktopNotifications?
    private var bubbles = ChatBubbles()
    private var waiting: [WatchNotification] = []
    private var events: Task<Void, Never>?

    /// A notifier connected to the notification service of the session bus `environment`
    /// names; throws, naming what is
    /// missing, when there is none. `requests` gets what the user asks for on a bubble, and
    /// `log` one line each time the service goes or comes back.
    public static func connect(
        environment: [String: String], _ appearance: Appearance = Appearance(), requests: @escaping @Sendable (Request) async -> Void,
        log: @escaping @Sendable (String) -> Void
    ) async throws(DesktopUnavailable) -> DesktopNotifier {
        let notifier = DesktopNotifier(environment, appearance, requests: requests, log: log)
        try await notifier.reconnect()
        return notifier
    }

    private init(
        _ environment: [String: String], _ appearance: Appearance, requests: @escaping @Sendable (Request) async -> Void,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.appearance = appearance
        self.requests = requests
        self.log = log
    }

    /// The server, while connected.
    public var server: NotificationServer? { service?.server }

    /// Shows `notification` in its chat's bubble. Throws when the service cannot take it; it
    /// is then kept and shown, before any later one, once the service is back.
    public func show(_ notification: WatchNotification) async throws(DesktopUnavailable) {
        waiting.append(notification)
        if waiting.count > Self.maximumWaiting { waiting.removeFirst(waiting.count - Self.maximumWaiting) }
        try await deliverWaiting()
    }

    /// Delivers what waits, oldest first; stops at the first the service cannot take.
    public func deliverWaiting() async throws(DesktopUnavailable) {
        while let next = waiting.first {
            if service == nil { try await reconnect() }
            guard let service else { return }
            let chat = ChatBubbles.Chat(account: next.account, partner: next.result.thread ?? next.account)
            let isTransfer = next.result.notification.kind == .transfer || next.result.notification.kind == .cryptoTransfer
            var counted = bubbles
            let (replacing, count) = counted.arrived(in: chat, isTransfer: isTransfer)
            do {
                let id = try await service.notify(
                    Self.bubble(for: next, count: count, server: service.server, appearance: appearance), replacing: replacing)
                bubbles = counted
                bubbles.shown(chat, as: id)
                waiting.removeFirst()
            } catch {
                self.service = nil
                log("desktop: a notification could not be shown, kept until the service is back: \(error)")
                throw error.isServiceUnknown ? .noService : .serviceFailed(error)
            }
        }
    }

    /// The bubble for `notification`, within what `server` can show.
    static func bubble(for notification: WatchNotification, count: String?, server: NotificationServer, appearance: Appearance) -> DesktopBubble {
        let rendered = notification.result.notification
        let markup = server.capabilities.contains("body-markup")
        let text = markup ? escapingMarkup(rendered.body) : rendered.body
        var hints = DesktopBubble.Hints()
        hints.category = "im.received"
        hints.desktopEntry = appearance.desktopEntry
        hints.soundName = appearance.soundName
        let actions: [DesktopBubble.Action] = appearance.actions && server.capabilities.contains("actions")
            ? [.init(key: "default", label: "Open"), .init(key: openKey, label: "Open")]
            : []
        return DesktopBubble(
            appName: appearance.appName, icon: appearance.icon, summary: rendered.title,
            body: count.map { $0 + "\n" + text } ?? text, actions: actions, hints: hints)
    }

    private func reconnect() async throws(DesktopUnavailable) {
        events?.cancel()
        let (stream, continuation) = AsyncStream<DesktopNotifications.Event>.makeStream()
        let connected = try await DesktopNotifications.connect(environment: environment) { continuation.yield($0) }
        service = connected
        bubbles = ChatBubbles()  // a new connection's ids are not the old one's
        events = Task { [weak self] in
            for await event in stream { await self?.handle(event, from: connected) }
        }
    }

    private func handle(_ event: DesktopNotifications.Event, from origin: DesktopNotifications) async {
        guard origin === service else { return }
        switch event {
        case .actionInvoked(let id, let key):
            guard let chat = bubbles.chat(shownAs: id) else { return }
            bubbles.seen(chat)
            switch key {
            case "default", Self.openKey: await requests(.open(chat))
            default: return
            }
        case .closed(let id, let reason):
            bubbles.closed(id, reason: reason)
        case .lost(let error):
            service = nil
            log("desktop: \(error); connecting again at the next notification")
        }
    }

    /// The body with `&`, `<` and `>` escaped, so a server that reads markup shows it as
    /// the text it is (`<b>`, `<a href>`, `<img src>` included) and fetches nothing.
    static func escapingMarkup(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
