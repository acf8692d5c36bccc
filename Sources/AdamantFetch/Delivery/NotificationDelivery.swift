public import AdamantCore
public import AdamantNodes

/// One account's notifications from the moment a watch or a fetch hands one over to what the
/// user sees, pure: the policy's decision (muted, held through quiet hours, shown), the lines
/// and hooks, and the desktop's bubbles, one per chat, queued in order while the notification
/// service is away or slow and recorded as undelivered so that a later process shows them.
///
/// Events go in, with the moment they happen; actions come out, for an executor to carry out
/// and to answer with events (a bubble shown, refused, the service lost or back). It owns no
/// I/O and reads no clock, so a table of events is its whole test.
public struct NotificationDelivery: Sendable {
    /// What the user asked for, and what the process can do.
    public struct Configuration: Sendable, Hashable {
        /// What may be shown, and when.
        public var policy: NotificationPolicy
        /// Notifications go to the desktop's notification service too.
        public var desktop: Bool
        /// The process stays to hear clicks and to show, when quiet hours end, what they
        /// held. One that exits offers no action, and shows a held notification at once,
        /// quietly.
        public var stays: Bool
        /// The title of the summary of what quiet hours held.
        public var appName = "ADAMANT"
        /// The words of what the delivery says itself: a preview's, the counts, the summary.
        public var wording = Wording.english
        /// What a bubble's title names its account by, after the partner (`"Alice · work"`),
        /// for a watch that follows several accounts: the same partner writing to two of them
        /// gives two bubbles that say which is which. Empty: titles name no account.
        public var accountLabels: [Address: String] = [:]

        /// A configuration with `policy`.
        public init(policy: NotificationPolicy = NotificationPolicy(), desktop: Bool, stays: Bool) {
            (self.policy, self.desktop, self.stays) = (policy, desktop, stays)
        }
    }

    /// How long "Mute 1 hour" mutes, in milliseconds.
    public static let muteSpan: Int64 = 3_600_000
    /// Bubbles kept while the service is away; beyond this the oldest are dropped, recorded as
    /// undelivered for the next process.
    public static let maximumWaiting = 100
    /// How many times a bubble the service refuses is sent before it is given up: the same
    /// bubble is likely refused again, and it would hold up every one after it.
    public static let maximumRefusals = 3

    /// When an event happens: the wall clock, and the local time of day quiet hours are in.
    public struct Moment: Sendable, Hashable {
        /// The wall clock's time, in Unix milliseconds.
        public var unixMillis: Int64
        /// Minutes since local midnight.
        public var minuteOfDay: Int

        /// A moment given whole.
        public init(unixMillis: Int64, minuteOfDay: Int) {
            (self.unixMillis, self.minuteOfDay) = (unixMillis, minuteOfDay)
        }

        /// `unixMillis` in the C library's local time zone.
        public init(unixMillis: Int64) {
            self.init(unixMillis: unixMillis, minuteOfDay: LocalTime.minuteOfDay(unixMillis: unixMillis))
        }
    }

    /// What happens.
    public enum Event: Sendable {
        /// A watch or a fetch handed over a notification for the first time.
        case found(WatchNotification)
        /// A notification an earlier process recorded as not on the desktop, fetched again.
        case missed(WatchNotification)
        /// The notification service answered: connected, or connected again.
        case connected(server: String)
        /// The bus connection or the service is gone.
        case lost(String)
        /// The bubble `serial` is on screen as `id`.
        case notified(serial: Int, id: UInt32)
        /// The service answered the bubble `serial` with an error.
        case refused(serial: Int, String)
        /// The service could not be reached, for the bubble `serial` or to connect.
        case unreachable(serial: Int?, String)
        /// The user picked the action `key` on the bubble `id` (`default` is a click).
        case invoked(id: UInt32, key: String)
        /// The bubble `id` is gone for `reason` (the specification's 1 to 4).
        case closed(id: UInt32, reason: UInt32)
        /// Time passed: the retry interval.
        case tick
        /// The process ends.
        case ending
    }

    /// What the executor does.
    public enum Action: Sendable {
        /// Hands the notification, as the policy lets it read, to the lines and the hook.
        case show(WatchNotification)
        /// Puts a bubble on the desktop.
        case notify(Bubble)
        /// Connects to the notification service again.
        case connect
        /// Keeps something in the home's log.
        case record(Record)
        /// Opens the chat (the user clicked its bubble).
        case open(ChatBubbles.Chat)
        /// Says what happened.
        case log(LogLevel, String)
    }

    /// A bubble to put on the desktop.
    public struct Bubble: Sendable, Hashable {
        /// Which one: the answer names it.
        public let serial: Int
        /// What it says and how.
        public let presentation: NotificationPolicy.Presentation
        /// "3 new messages" above the newest's text; nil for a single one.
        public let count: String?
        /// The chat's bubble it replaces; 0 for a new one.
        public let replacing: UInt32
        /// It offers "Open" and "Mute 1 hour".
        public let actions: Bool

        /// A bubble as given.
        public init(
            serial: Int, presentation: NotificationPolicy.Presentation, count: String?, replacing: UInt32, actions: Bool
        ) {
            (self.serial, self.presentation, self.count, self.replacing, self.actions) = (
                serial, presentation, count, replacing, actions
            )
        }
    }

    /// What the home's log keeps.
    public enum Record: Sendable, Hashable {
        /// Not on the desktop: the next process shows them there.
        case undelivered([TransactionID])
        /// On the desktop after all.
        case delivered([TransactionID])
        /// The chat is muted until a Unix millisecond.
        case muted(ChatBubbles.Chat, until: Int64)
    }

    /// A bubble waiting for the service: its chat (none for a summary, which replaces and
    /// counts nothing) and the transactions it shows.
    struct Pending: Sendable, Hashable {
        let serial: Int
        let chat: ChatBubbles.Chat?
        let isTransfer: Bool
        let presentation: NotificationPolicy.Presentation
        /// When it was sent, in the chain's milliseconds: the chat's bubble shows its newest.
        let sentAt: Int64
        let ids: [TransactionID]
        /// Its transactions are recorded as undelivered (held and missed ones from the start).
        var recorded: Bool
        var refusals = 0
    }

    /// Whether the notification service is there.
    enum Service: Sendable, Hashable {
        case connected
        case connecting
        case away
    }

    /// What the user asked for, and what the process can do, as given.
    public private(set) var configuration: Configuration
    private(set) var bubbles = ChatBubbles()
    /// In order; the first is with the service while `sending` is set.
    private(set) var waiting: [Pending] = []
    private var sending: Int?
    /// Clicks and closes of bubbles not known yet, read while `sending` is with the service: it
    /// shows a bubble as it takes it, so on a loaded machine the user's click can come before
    /// the answer that names the bubble. The answer acts on those for its bubble and drops the
    /// rest, which were some other program's; a few at most are kept.
    private var early: [(id: UInt32, event: Event)] = []
    private static let earlyLimit = 8
    private var service: Service
    /// The service went away and has not been reached since: its return is logged.
    private var wasAway = false
    /// Held through quiet hours: which transactions, in which chats.
    private(set) var held: (ids: [TransactionID], chats: Set<ChatBubbles.Chat>) = ([], [])
    private var serials = 0

    /// A delivery, connected to the desktop's service if it is used at all (a process checks
    /// that the service is there before it starts).
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        bubbles = ChatBubbles(wording: configuration.wording)
        service = .connected
    }

    /// What to do about `event`, which happens at `now`.
    public mutating func handle(_ event: Event, at now: Moment) -> [Action] {
        switch event {
        case .found(let notification): return found(notification, at: now)
        case .missed(let notification): return missed(notification, at: now)
        case .connected(let server):
            service = .connected
            bubbles = ChatBubbles(wording: configuration.wording)  // a new connection's ids are not the old one's
            var actions: [Action] = []
            if wasAway {
                wasAway = false
                actions.append(.log(.info, "desktop: the notification service is back: \(server)"))
            }
            return actions + next()
        case .lost(let reason):
            service = .away
            wasAway = true
            return [.log(.warning, "desktop: \(reason); connecting again at the next notification")]
        case .notified(let serial, let id): return notified(serial, as: id, at: now)
        case .refused(let serial, let reason): return refused(serial, reason)
        case .unreachable(let serial, let reason):
            if serial != nil, serial == sending {
                sending = nil
                early = []
            }
            let logged: [Action] =
                serial == nil
                ? []
                : [
                    .log(
                        .warning,
                        "desktop: a notification could not be shown, kept until the service is back: \(reason)")
                ]
            service = .away
            wasAway = true
            return logged + recordWaiting()
        case .invoked(let id, let key):
            return keptEarly(event, id: id) ? [] : invoked(id, key, at: now)
        case .closed(let id, let reason):
            if !keptEarly(event, id: id) { bubbles.closed(id, reason: reason) }
            return []
        case .tick:
            var actions: [Action] = []
            if configuration.stays, !isQuiet(now), !held.ids.isEmpty { actions += releaseHeld() }
            return actions + next()
        case .ending:
            return recordWaiting()
        }
    }

    /// Whether `now` is in the quiet hours.
    func isQuiet(_ now: Moment) -> Bool {
        configuration.policy.quiet?.contains(minute: now.minuteOfDay) ?? false
    }

    private mutating func found(_ notification: WatchNotification, at now: Moment) -> [Action] {
        switch configuration.policy.decide(
            notification.result.notification, in: ChatBubbles.Chat(of: notification), unixMillis: now.unixMillis,
            minute: now.minuteOfDay, wording: configuration.wording)
        {
        case .drop:
            return [.log(.info, "watch: not shown: muted, or a kind not asked for")]
        case .show(let presentation):
            let shown = presentation.applied(to: notification)
            return [.show(shown)] + (configuration.desktop ? enqueue(shown, as: presentation, recorded: false) : [])
        case .hold(var presentation):
            let shown = presentation.applied(to: notification)
            guard configuration.desktop else { return [.show(shown)] }
            guard configuration.stays else {
                // Nothing stays to show a summary later: quiet now instead.
                (presentation.urgency, presentation.silent) = (.low, true)
                return [.show(shown)] + enqueue(shown, as: presentation, recorded: false)
            }
            hold(notification)
            return [
                .show(shown), .record(.undelivered([notification.result.id])),
                .log(.info, "desktop: held for the summary when the quiet hours end"),
            ]
        }
    }

    /// One an earlier process did not put on the desktop: shown there as the policy says now,
    /// held again if still quiet, else let go.
    private mutating func missed(_ notification: WatchNotification, at now: Moment) -> [Action] {
        guard configuration.desktop, notification.result.failure == nil else {
            return [.record(.delivered([notification.result.id]))]
        }
        switch configuration.policy.decide(
            notification.result.notification, in: ChatBubbles.Chat(of: notification), unixMillis: now.unixMillis,
            minute: now.minuteOfDay, wording: configuration.wording)
        {
        case .show(let presentation):
            return enqueue(presentation.applied(to: notification), as: presentation, recorded: true)
        case .hold where configuration.stays:
            hold(notification)
            return []
        case .hold, .drop:
            return [.record(.delivered([notification.result.id]))]
        }
    }

    private mutating func hold(_ notification: WatchNotification) {
        held.ids.append(notification.result.id)
        held.chats.insert(ChatBubbles.Chat(of: notification))
    }

    /// One bubble for what was held ("5 notifications in 3 chats while quiet"); it names no
    /// chat and quotes nothing, whatever the preview.
    private mutating func releaseHeld() -> [Action] {
        let (ids, chats) = held
        held = ([], [])
        let wording = configuration.wording
        let summary = NotificationPolicy.Presentation(
            title: configuration.appName,
            body: wording.text(
                .quietSummary, wording.counted(.notifications, ids.count), wording.counted(.inChats, chats.count)),
            showsText: false, urgency: .normal, silent: false)
        waiting.append(
            Pending(
                serial: nextSerial(), chat: nil, isTransfer: false, presentation: summary, sentAt: .max, ids: ids,
                recorded: true))
        return []
    }

    private mutating func enqueue(
        _ notification: WatchNotification, as presentation: NotificationPolicy.Presentation, recorded: Bool
    ) -> [Action] {
        let kind = notification.result.notification.kind
        var presentation = presentation
        if let label = configuration.accountLabels[notification.account] {
            let wording = configuration.wording
            presentation.title += " · " + (wording.isRightToLeft ? "\u{2068}\(label)\u{2069}" : label)
        }
        // Without a transaction (a fallback), it counts as sent now.
        let sentAt = notification.result.transaction.map { $0.timestampMs ?? Int64($0.timestamp) * 1000 } ?? .max
        waiting.append(
            Pending(
                serial: nextSerial(), chat: ChatBubbles.Chat(of: notification),
                isTransfer: kind == .transfer || kind == .cryptoTransfer, presentation: presentation, sentAt: sentAt,
                ids: [notification.result.id], recorded: recorded))
        var actions: [Action] = []
        while waiting.count > Self.maximumWaiting {
            // The oldest that is not with the service.
            let dropped = waiting.remove(at: sending == waiting[0].serial ? 1 : 0)
            if !dropped.recorded { actions.append(.record(.undelivered(dropped.ids))) }
        }
        // A service that went away is asked again at the next notification.
        return actions + next()
    }

    /// The first waiting bubble to the service, when it is there and has none of ours.
    private mutating func next() -> [Action] {
        guard sending == nil, let first = waiting.first else { return [] }
        switch service {
        case .connecting: return []
        case .away:
            service = .connecting
            return [.connect]
        case .connected:
            sending = first.serial
            var counted = bubbles
            let (replacing, count, shows) =
                first.chat.map {
                    counted.arrived(in: $0, isTransfer: first.isTransfer, sentAt: first.sentAt, first.presentation)
                } ?? (0, nil, first.presentation)
            return [
                .notify(
                    Bubble(
                        serial: first.serial, presentation: shows, count: count, replacing: replacing,
                        actions: first.chat != nil && configuration.stays))
            ]
        }
    }

    private mutating func notified(_ serial: Int, as id: UInt32, at now: Moment) -> [Action] {
        guard serial == sending, let index = waiting.firstIndex(where: { $0.serial == serial }) else { return [] }
        sending = nil
        let delivered = waiting.remove(at: index)
        if let chat = delivered.chat {
            _ = bubbles.arrived(
                in: chat, isTransfer: delivered.isTransfer, sentAt: delivered.sentAt, delivered.presentation)
            bubbles.shown(chat, as: id)
        }
        let earlier = early.filter { $0.id == id }.map(\.event)
        early = []
        return (delivered.recorded ? [.record(.delivered(delivered.ids))] : [])
            + earlier.flatMap { handle($0, at: now) } + next()
    }

    /// Keeps `event` for the answer to come when it names a bubble not known while one is
    /// with the service; whether it was kept.
    private mutating func keptEarly(_ event: Event, id: UInt32) -> Bool {
        guard sending != nil, bubbles.chat(shownAs: id) == nil else { return false }
        early = early.suffix(Self.earlyLimit - 1) + [(id, event)]
        return true
    }

    /// A refusal is asked again at the next notification or tick, up to its last.
    private mutating func refused(_ serial: Int, _ reason: String) -> [Action] {
        guard serial == sending, let index = waiting.firstIndex(where: { $0.serial == serial }) else { return [] }
        sending = nil
        early = []
        waiting[index].refusals += 1
        let limit = Self.maximumRefusals
        guard waiting[index].refusals >= limit else {
            let times = "(\(waiting[index].refusals) of \(limit) times)"
            return [.log(.warning, "desktop: the notification service refused a notification \(times): \(reason)")]
                + recordWaiting()
        }
        let refused = waiting.remove(at: index)
        let given = "given up and recorded as not delivered"
        return [
            .log(
                .warning, "desktop: the notification service refused a notification \(limit) times, \(given): \(reason)"
            )
        ]
            + (refused.recorded ? [] : [.record(.undelivered(refused.ids))]) + next()
    }

    private mutating func invoked(_ id: UInt32, _ key: String, at now: Moment) -> [Action] {
        guard let chat = bubbles.chat(shownAs: id) else { return [] }
        bubbles.seen(chat)
        switch key {
        case "default", Self.openKey:
            return [.open(chat)]
        case Self.muteKey:
            let until = now.unixMillis + Self.muteSpan
            configuration.policy.mutedChats[chat] = until
            return [
                .record(.muted(chat, until: until)),
                .log(.info, "watch: \(chat.partner) muted until \(UTCTime.text(unixMillis: until))"),
            ]
        default:
            return []
        }
    }

    /// Records what waits and is not recorded yet as undelivered, so that a later process shows it.
    private mutating func recordWaiting() -> [Action] {
        var ids: [TransactionID] = []
        for index in waiting.indices where !waiting[index].recorded {
            waiting[index].recorded = true
            ids += waiting[index].ids
        }
        return ids.isEmpty ? [] : [.record(.undelivered(ids))]
    }

    private mutating func nextSerial() -> Int {
        serials += 1
        return serials
    }

    /// The action keys of a chat's bubble.
    public static let openKey = "open"
    /// The action that mutes the bubble's chat for an hour.
    public static let muteKey = "mute-1h"
}
