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
        /// The user picked `action` on the bubble `id`.
        case invoked(id: UInt32, action: BubbleAction)
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

    /// What the user asked for, and what the process can do, as given.
    public internal(set) var configuration: Configuration
    var bubbles = ChatBubbles()
    /// Where the service stands, and the bubble of ours it has, if any.
    var state: State = .connected(sending: nil)
    /// In order, behind the bubble with the service: what is not on the desktop yet.
    var waiting: [Pending] = []
    /// Held through quiet hours: which transactions, in which chats.
    var held: (ids: [TransactionID], chats: Set<ChatBubbles.Chat>) = ([], [])
    /// The last bubble's serial.
    var serials = 0
    /// An impossible transition stops a debug build where it happens, besides its log; the
    /// tests of that log turn this off. A release build only logs.
    var stopsOnImpossible = true

    /// A delivery, connected to the desktop's service if it is used at all (a process checks
    /// that the service is there before it starts).
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        bubbles = ChatBubbles(wording: configuration.wording)
    }

    /// What to do about `event`, which happens at `now`.
    public mutating func handle(_ event: Event, at now: Moment) -> [Action] {
        switch event {
        case .found(let notification): return found(notification, at: now)
        case .missed(let notification): return missed(notification, at: now)
        case .connected(let server): return connected(server)
        case .lost(let reason):
            state = .away(sending: state.sending)
            return [.log(.warning, "desktop: \(reason); connecting again at the next notification")]
        case .notified(let serial, let id): return notified(serial, as: id, at: now)
        case .refused(let serial, let reason): return refused(serial, reason)
        case .unreachable(let serial?, let reason): return unreachable(serial, reason)
        case .unreachable(nil, _):
            // A reconnect failed; it dropped whatever connection there was, and a bubble with
            // the service still gets its answer.
            state = .away(sending: state.sending)
            return recordWaiting()
        case .invoked(let id, let action):
            return keptEarly(event, id: id) ? [] : invoked(id, action, at: now)
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
}
