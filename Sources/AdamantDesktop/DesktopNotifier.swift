public import AdamantCore
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
        /// "Mute 1 hour".
        case mute(ChatBubbles.Chat)
    }

    /// One account's transaction.
    struct AccountTransaction: Sendable, Hashable {
        let id: TransactionID
        let account: Address
    }

    /// A bubble to show: its chat (none for a summary, which replaces and counts nothing),
    /// what the policy lets it say and how, and the transactions it shows.
    struct Pending: Sendable, Hashable {
        let chat: ChatBubbles.Chat?
        let isTransfer: Bool
        let presentation: NotificationPolicy.Presentation
        /// When it was sent, in the chain's milliseconds: the chat's bubble shows its newest.
        let sentAt: Int64
        /// Its own transaction, or those a summary sums up.
        var transactions: [AccountTransaction]
        /// Whether they are recorded as undelivered (held ones are from the start).
        var recorded = false
    }

    /// Undelivered bubbles kept while the service is away; beyond this the oldest are dropped
    /// (each is still in the watch's journal as shown, and in `--json` and `--exec`).
    public static let maximumWaiting = 100
    /// How often a process that stays asks a service that went away again.
    public static let retryInterval: Duration = .seconds(10)
    static let openKey = "open"
    static let muteKey = "mute-1h"

    private let environment: [String: String]
    private let appearance: Appearance
    private let requests: @Sendable (Request) async -> Void
    private let record: (any UndeliveredRecord)?
    private let log: @Sendable (String) -> Void
    private var service: DesktopNotifications?
    private var bubbles = ChatBubbles()
    private var waiting: [Pending] = []
    /// Held through quiet hours: which transactions, in which chats.
    private var held: (transactions: [AccountTransaction], chats: Set<ChatBubbles.Chat>) = ([], [])
    private var events: Task<Void, Never>?
    /// A delivery is under way: the actor lets another call in while it awaits the server,
    /// and two deliveries would send the same bubble twice.
    private var delivering = false

    /// A notifier connected to the notification service of the session bus `environment`
    /// names; throws, naming what is missing, when there is none. `record` keeps what the
    /// service could not take, `requests` gets what the user asks for on a bubble, and `log`
    /// one line each time the service goes or comes back.
    public static func connect(
        environment: [String: String], _ appearance: Appearance = Appearance(), record: (any UndeliveredRecord)? = nil,
        requests: @escaping @Sendable (Request) async -> Void, log: @escaping @Sendable (String) -> Void
    ) async throws(DesktopUnavailable) -> DesktopNotifier {
        let notifier = DesktopNotifier(environment, appearance, record: record, requests: requests, log: log)
        try await notifier.reconnect()
        return notifier
    }

    private init(
        _ environment: [String: String], _ appearance: Appearance, record: (any UndeliveredRecord)?,
        requests: @escaping @Sendable (Request) async -> Void, log: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.record = record
        self.appearance = appearance
        self.requests = requests
        self.log = log
    }

    /// The server, while connected.
    public var server: NotificationServer? { service?.server }

    /// Shows `notification` in its chat's bubble as `presentation` says. Throws when the
    /// service cannot take it; it is then kept and shown, before any later one, once the
    /// service is back, and recorded as undelivered meanwhile (a later process shows what
    /// this one could not).
    public func show(_ notification: WatchNotification, as presentation: NotificationPolicy.Presentation) async throws(DesktopUnavailable) {
        let kind = notification.result.notification.kind
        // Without a transaction (a fallback), it counts as sent now.
        let sentAt = notification.result.transaction.map { $0.timestampMs ?? Int64($0.timestamp) * 1000 } ?? .max
        waiting.append(Pending(
            chat: Self.chat(of: notification), isTransfer: kind == .transfer || kind == .cryptoTransfer, presentation: presentation,
            sentAt: sentAt, transactions: [AccountTransaction(id: notification.result.id, account: notification.account)]))
        if waiting.count > Self.maximumWaiting { waiting.removeFirst(waiting.count - Self.maximumWaiting) }
        do throws(DesktopUnavailable) { try await deliverWaiting() } catch {
            for index in waiting.indices where !waiting[index].recorded {
                for transaction in waiting[index].transactions { await record?.missed(transaction.id, account: transaction.account) }
                waiting[index].recorded = true
            }
            throw error
        }
    }

    /// Keeps `notification` for the summary shown when quiet hours end, recorded as
    /// undelivered until then: the watch's journal has it as shown, and a watch stopped
    /// before the hours end leaves it to the next.
    public func hold(_ notification: WatchNotification) async {
        held.transactions.append(AccountTransaction(id: notification.result.id, account: notification.account))
        held.chats.insert(Self.chat(of: notification))
        await record?.missed(notification.result.id, account: notification.account)
    }

    /// Shows one bubble for what was held ("5 notifications in 3 chats while quiet"), if
    /// anything was; it names no chat and quotes nothing, whatever the preview.
    public func releaseHeld() async throws(DesktopUnavailable) {
        guard !held.transactions.isEmpty else { return }
        let (transactions, chats) = held
        held = ([], [])
        let count = transactions.count
        let body = "\(count) notification\(count == 1 ? "" : "s") in \(chats.count) chat\(chats.count == 1 ? "" : "s") while quiet"
        let summary = NotificationPolicy.Presentation(title: appearance.appName, body: body, showsText: false, urgency: .normal, silent: false)
        waiting.append(Pending(chat: nil, isTransfer: false, presentation: summary, sentAt: .max, transactions: transactions, recorded: true))
        try await deliverWaiting()
    }

    /// Delivers what waits, oldest first; stops at the first the service cannot take. While
    /// another call delivers, returns at once: that one takes what was added meanwhile too.
    public func deliverWaiting() async throws(DesktopUnavailable) {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while let next = waiting.first {
            if service == nil { try await reconnect() }
            guard let service else { return }
            var counted = bubbles
            let (replacing, count, shows) = next.chat.map {
                counted.arrived(in: $0, isTransfer: next.isTransfer, sentAt: next.sentAt, next.presentation)
            } ?? (0, nil, next.presentation)
            do {
                let id = try await service.notify(
                    Self.bubble(for: shows, count: count, server: service.server, appearance: appearance, actions: next.chat != nil),
                    replacing: replacing)
                if let chat = next.chat {
                    bubbles = counted
                    bubbles.shown(chat, as: id)
                }
                waiting.removeFirst()
                if next.recorded {
                    for transaction in next.transactions { await record?.delivered(transaction.id, account: transaction.account) }
                }
            } catch {
                self.service = nil
                log("desktop: a notification could not be shown, kept until the service is back: \(error)")
                throw error.isServiceUnknown ? .noService : .serviceFailed(error)
            }
        }
    }

    /// The bubble for `presentation`, within what `server` can show. Only the body is markup
    /// (the specification's summary is plain text, and servers show it as such).
    static func bubble(
        for presentation: NotificationPolicy.Presentation, count: String?, server: NotificationServer, appearance: Appearance, actions chatActions: Bool = true
    ) -> DesktopBubble {
        let markup = server.capabilities.contains("body-markup")
        let text = markup ? escapingMarkup(presentation.body) : presentation.body
        var hints = DesktopBubble.Hints()
        hints.category = "im.received"
        hints.desktopEntry = appearance.desktopEntry
        hints.soundName = appearance.soundName
        hints.urgency = presentation.urgency
        hints.suppressSound = presentation.silent
        let actions: [DesktopBubble.Action] = chatActions && appearance.actions && server.capabilities.contains("actions")
            ? [.init(key: "default", label: "Open"), .init(key: openKey, label: "Open"), .init(key: muteKey, label: "Mute 1 hour")]
            : []
        return DesktopBubble(
            appName: appearance.appName, icon: appearance.icon, summary: presentation.title,
            body: count.map { $0 + "\n" + text } ?? text, actions: actions, hints: hints)
    }

    /// The chat `notification` belongs to.
    public static func chat(of notification: WatchNotification) -> ChatBubbles.Chat {
        ChatBubbles.Chat(account: notification.account, partner: notification.result.thread ?? notification.account)
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
            case Self.muteKey: await requests(.mute(chat))
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

/// Where a notifier keeps what the desktop did not take (its service was away), so that a
/// later process shows it: the watch's notification log.
public protocol UndeliveredRecord: Sendable {
    /// `id` of `account` is not on the desktop.
    func missed(_ id: TransactionID, account: Address) async
    /// `id` of `account` reached the desktop after all.
    func delivered(_ id: TransactionID, account: Address) async
}
