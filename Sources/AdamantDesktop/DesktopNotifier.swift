public import AdamantCore
public import AdamantFetch
public import AdamantNodes

/// `--notify`: each notification as a desktop bubble, one per chat, with its actions. A
/// service that goes away is connected to again at the next notification; the ones it could
/// not take wait, in order, recorded as undelivered, and are shown when it is back (which is
/// logged). One the service refuses is asked again a few times, then given up.
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
        /// Which one it is: others come and go while one is with the service.
        let serial: Int
        let chat: ChatBubbles.Chat?
        let isTransfer: Bool
        let presentation: NotificationPolicy.Presentation
        /// When it was sent, in the chain's milliseconds: the chat's bubble shows its newest.
        let sentAt: Int64
        /// Its own transaction, or those a summary sums up.
        var transactions: [AccountTransaction]
        /// Whether they are recorded as undelivered (held ones are from the start).
        var recorded = false
        /// How many times the service answered it with an error.
        var refusals = 0
    }

    /// Undelivered bubbles kept while the service is away; beyond this the oldest are dropped,
    /// recorded as undelivered for the next watch.
    public static let maximumWaiting = 100
    /// How often a process that stays asks a service that went away again.
    public static let retryInterval: Duration = .seconds(10)
    /// How many times a notification the service refuses is sent before it is given up: the
    /// same bubble is likely refused again, and it would hold up every one after it.
    public static let maximumRefusals = 3
    static let openKey = "open"
    static let muteKey = "mute-1h"

    private let environment: [String: String]
    private let appearance: Appearance
    private let requests: @Sendable (Request) async -> Void
    private let record: (any UndeliveredRecord)?
    private let log: any LogSink
    private var service: DesktopNotifications?
    private(set) var bubbles = ChatBubbles()
    private var waiting: [Pending] = []
    private var serials = 0
    /// Held through quiet hours: which transactions, in which chats.
    private var held: (transactions: [AccountTransaction], chats: Set<ChatBubbles.Chat>) = ([], [])
    private var events: Task<Void, Never>?
    /// A delivery is under way: the actor lets another call in while it awaits the server,
    /// and two deliveries would send the same bubble twice.
    private var delivering = false
    /// The service went away and has not been reached since.
    private var away = false

    /// A notifier connected to the notification service of the session bus `environment`
    /// names; throws, naming what is missing, when there is none. `record` keeps what the
    /// service could not take, `requests` gets what the user asks for on a bubble, and `log`
    /// a line each time the service goes, refuses or comes back.
    public static func connect(
        environment: [String: String], _ appearance: Appearance = Appearance(), record: (any UndeliveredRecord)? = nil,
        requests: @escaping @Sendable (Request) async -> Void, log: any LogSink
    ) async throws(DesktopUnavailable) -> DesktopNotifier {
        let notifier = DesktopNotifier(environment, appearance, record: record, requests: requests, log: log)
        try await notifier.reconnect()
        return notifier
    }

    private init(
        _ environment: [String: String], _ appearance: Appearance, record: (any UndeliveredRecord)?,
        requests: @escaping @Sendable (Request) async -> Void, log: any LogSink
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
    public func show(_ notification: WatchNotification, as presentation: NotificationPolicy.Presentation)
        async throws(DesktopUnavailable)
    {
        await enqueue(notification, as: presentation)
        try await deliverWaiting()
    }

    /// Queues `notification` as `show` does and returns at once: it goes to the service in a
    /// delivery of its own, so that a service that hangs (each call waits for it up to 5 s)
    /// holds up nobody. What the service cannot take is recorded and kept, as with `show`.
    public func post(_ notification: WatchNotification, as presentation: NotificationPolicy.Presentation) async {
        await enqueue(notification, as: presentation)
        guard !delivering else { return }  // that delivery takes this one too
        Task { try? await self.deliverWaiting() }
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
        let body =
            "\(count) notification\(count == 1 ? "" : "s") in \(chats.count) chat\(chats.count == 1 ? "" : "s") while quiet"
        let summary = NotificationPolicy.Presentation(
            title: appearance.appName, body: body, showsText: false, urgency: .normal, silent: false)
        waiting.append(
            Pending(
                serial: nextSerial(), chat: nil, isTransfer: false, presentation: summary, sentAt: .max,
                transactions: transactions, recorded: true))
        try await deliverWaiting()
    }

    /// Delivers what waits, oldest first; stops at the first the service cannot take, and
    /// records what waits as undelivered. While another call delivers, returns at once: that
    /// one takes what was added meanwhile too.
    public func deliverWaiting() async throws(DesktopUnavailable) {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while let next = waiting.first {
            do throws(DesktopUnavailable) { try await deliver(next) } catch {
                await recordWaiting()
                throw error
            }
        }
    }

    /// Records what still waits as undelivered, so that a later process shows it: a process
    /// that ends with the service away (or hanging) calls it last.
    public func recordWaiting() async {
        // Marked before each await, in which the queue may change.
        while let index = waiting.firstIndex(where: { !$0.recorded }) {
            waiting[index].recorded = true
            await recordMissed(waiting[index].transactions)
        }
    }

    /// Sends `next`, the first that waits, and takes it off the queue, or gives it up at its
    /// last refusal; throws when it stays.
    private func deliver(_ next: Pending) async throws(DesktopUnavailable) {
        if service == nil { try await reconnect() }
        guard let service else { throw .noService }
        var counted = bubbles
        let (replacing, count, shows) =
            next.chat.map {
                counted.arrived(in: $0, isTransfer: next.isTransfer, sentAt: next.sentAt, next.presentation)
            } ?? (0, nil, next.presentation)
        let id: UInt32
        do {
            id = try await service.notify(
                Self.bubble(
                    for: shows, count: count, server: service.server, appearance: appearance, actions: next.chat != nil),
                replacing: replacing)
        } catch  where error.isRefusal {
            guard let index = waiting.firstIndex(where: { $0.serial == next.serial }) else { return }
            waiting[index].refusals += 1
            guard waiting[index].refusals >= Self.maximumRefusals else {
                log.log(
                    .warning,
                    "desktop: the notification service refused a notification (\(waiting[index].refusals) of \(Self.maximumRefusals) times): \(error)"
                )
                throw .serviceFailed(error)
            }
            let refused = waiting.remove(at: index)
            log.log(
                .warning,
                "desktop: the notification service refused a notification \(Self.maximumRefusals) times, given up and recorded as not delivered: \(error)"
            )
            if !refused.recorded { await recordMissed(refused.transactions) }
            return
        } catch {
            self.service = nil
            away = true
            log.log(.warning, "desktop: a notification could not be shown, kept until the service is back: \(error)")
            throw error.isServiceUnknown ? .noService : .serviceFailed(error)
        }
        if let chat = next.chat {
            bubbles = counted
            bubbles.shown(chat, as: id)
        }
        // Looked up again: what waits may have been recorded meanwhile.
        guard let index = waiting.firstIndex(where: { $0.serial == next.serial }) else { return }
        let delivered = waiting.remove(at: index)
        if delivered.recorded {
            for transaction in delivered.transactions {
                await record?.delivered(transaction.id, account: transaction.account)
            }
        }
    }

    private func enqueue(_ notification: WatchNotification, as presentation: NotificationPolicy.Presentation) async {
        let kind = notification.result.notification.kind
        // Without a transaction (a fallback), it counts as sent now.
        let sentAt = notification.result.transaction.map { $0.timestampMs ?? Int64($0.timestamp) * 1000 } ?? .max
        waiting.append(
            Pending(
                serial: nextSerial(), chat: Self.chat(of: notification),
                isTransfer: kind == .transfer || kind == .cryptoTransfer,
                presentation: presentation, sentAt: sentAt,
                transactions: [AccountTransaction(id: notification.result.id, account: notification.account)]))
        guard waiting.count > Self.maximumWaiting else { return }
        let dropped = waiting.prefix(waiting.count - Self.maximumWaiting)
        waiting.removeFirst(dropped.count)
        for pending in dropped where !pending.recorded { await recordMissed(pending.transactions) }
    }

    private func recordMissed(_ transactions: [AccountTransaction]) async {
        for transaction in transactions { await record?.missed(transaction.id, account: transaction.account) }
    }

    private func nextSerial() -> Int {
        serials += 1
        return serials
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
        if away {
            away = false
            log.log(.info, "desktop: the notification service is back: \(connected.server)")
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
            away = true
            log.log(.warning, "desktop: \(error); connecting again at the next notification")
        }
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
