public import AdamantCore

/// What the user allows a notification to say and when, pure: the same for desktop bubbles,
/// `--json` lines and `--exec` hooks. Muted chats and kinds not asked for are dropped;
/// `preview` decides which text leaves the process; quiet hours make bubbles silent, or hold
/// them for one summary when the hours end.
public struct NotificationPolicy: Sendable, Hashable {
    /// How much of a notification is shown.
    public enum Preview: String, Sendable, Hashable, CaseIterable {
        /// The partner's name and the text.
        case full
        /// The partner's name, and "New message" or "New transfer".
        case sender
        /// "ADAMANT" and "New message", what the iOS extension shows before it has decrypted:
        /// no word of the message and no name.
        case none
    }

    /// What quiet hours do to bubbles.
    public enum QuietMode: String, Sendable, Hashable, CaseIterable {
        /// Shown at once, at low urgency and with no sound.
        case silent
        /// Held, and shown as one summary when the hours end.
        case hold
    }

    /// The groups of notifications a user turns on and off.
    public enum KindGroup: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Messages, replies, files and rich messages.
        case messages
        /// ADM transfers and crypto transfers.
        case transfers
        /// Reactions.
        case reactions

        /// The group of `kind`; nil for what is never shown (signals).
        public init?(_ kind: NotificationKind) {
            switch kind {
            case .message, .reply, .file, .unknown: self = .messages
            case .transfer, .cryptoTransfer: self = .transfers
            case .reaction: self = .reactions
            case .signal: return nil
            }
        }

        /// By name, so that groups are always listed in one order.
        public static func < (a: KindGroup, b: KindGroup) -> Bool { a.rawValue < b.rawValue }
    }

    /// A stretch of the day in local time, in minutes since midnight; it wraps past midnight
    /// when it ends before it starts ("22:00-07:00").
    public struct QuietHours: Sendable, Hashable, CustomStringConvertible {
        /// The first minute in the stretch.
        public let start: Int
        /// The first minute after it: before `start` when the stretch wraps past midnight.
        public let end: Int

        /// Parses "HH:MM-HH:MM"; nil for anything else (an empty stretch included).
        public init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Self.minute(parts[0]), let end = Self.minute(parts[1]), start != end
            else { return nil }
            (self.start, self.end) = (start, end)
        }

        /// Whether `minute` (since local midnight) is in the stretch.
        public func contains(minute: Int) -> Bool {
            start < end ? (start..<end).contains(minute) : minute >= start || minute < end
        }

        /// "HH:MM-HH:MM", as the stretch is parsed.
        public var description: String { Self.clock(start) + "-" + Self.clock(end) }

        private static func minute(_ text: Substring) -> Int? {
            let fields = text.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2, fields.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
                let hour = Int(fields[0]), let minute = Int(fields[1]), hour < 24, minute < 60
            else { return nil }
            return hour * 60 + minute
        }

        private static func clock(_ minute: Int) -> String {
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return two(minute / 60) + ":" + two(minute % 60)
        }
    }

    /// How much a bubble should interrupt: the Desktop Notifications Specification's 0, 1 and 2.
    public enum Urgency: UInt8, Sendable, Hashable {
        /// Low: how quiet hours show a bubble.
        case low = 0
        /// Normal: every other bubble.
        case normal = 1
        /// Critical: it does not expire by itself, the user dismisses it.
        case critical = 2
    }

    /// What to do with one notification.
    public enum Decision: Sendable, Hashable {
        /// Not shown anywhere: a muted chat, a kind not asked for.
        case drop
        /// Shown, as `Presentation` says.
        case show(Presentation)
        /// Shown on the desktop only when the quiet hours end (lines and hooks go on at once).
        case hold(Presentation)
    }

    /// The text and manner of a notification that is shown.
    public struct Presentation: Sendable, Hashable {
        /// The title: the partner's name or address, or "ADAMANT".
        public var title: String
        /// The one-line body: what the notification says, or "New message" or "New transfer"
        /// when the preview hides it.
        public var body: String
        /// Whether the message's own text may be passed on (`--json`'s `text`).
        public var showsText: Bool
        /// How much a bubble interrupts.
        public var urgency: Urgency
        /// Whether a bubble makes no sound.
        public var silent: Bool

        /// A presentation as given.
        public init(title: String, body: String, showsText: Bool, urgency: Urgency, silent: Bool) {
            (self.title, self.body, self.showsText, self.urgency, self.silent) = (
                title, body, showsText, urgency, silent
            )
        }
    }

    /// How much of each notification is shown.
    public var preview: Preview = .full
    /// Partners never notified (nil), or until a time (Unix milliseconds), in every account.
    public var muted: [Address: Int64?] = [:]
    /// One account's chats muted until a time (Unix milliseconds): "Mute 1 hour".
    public var mutedChats: [ChatBubbles.Chat: Int64] = [:]
    /// The quiet hours, if there are any.
    public var quiet: QuietHours?
    /// What quiet hours do to bubbles.
    public var quietMode: QuietMode = .silent
    /// The groups of notifications shown; the others are dropped.
    public var kinds: Set<KindGroup> = Set(KindGroup.allCases)

    /// Every notification, in full, at any hour.
    public init() {}

    /// The decision for `notification` in `chat`, at `unixMillis`, `minute` minutes after
    /// local midnight; what a preview puts in place of the text is in `wording`.
    public func decide(
        _ notification: RenderedNotification, in chat: ChatBubbles.Chat, unixMillis: Int64, minute: Int,
        wording: Wording = .english
    ) -> Decision {
        guard notification.shown, let group = KindGroup(notification.kind), kinds.contains(group) else { return .drop }
        if let mute = muted[chat.partner], mute.map({ unixMillis < $0 }) ?? true { return .drop }
        if let until = mutedChats[chat], unixMillis < until { return .drop }
        var presentation = Presentation(
            title: notification.title, body: notification.body, showsText: true, urgency: .normal, silent: false)
        switch preview {
        case .full: break
        case .sender:
            presentation.body = wording.text(group == .transfers ? .newTransfer : .newMessage)
            presentation.showsText = false
        case .none:
            presentation.title = "ADAMANT"
            presentation.body = wording.text(.newMessage)
            presentation.showsText = false
        }
        guard let quiet, quiet.contains(minute: minute) else { return .show(presentation) }
        switch quietMode {
        case .silent:
            presentation.urgency = .low
            presentation.silent = true
            return .show(presentation)
        case .hold:
            return .hold(presentation)
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension NotificationPolicy.Presentation {
    /// `notification` as this presentation shows it, for every output: the title and body
    /// replaced, and the message's text left out unless it may be passed on.
    public func applied(to notification: WatchNotification) -> WatchNotification {
        var shown = notification
        shown.result.notification.title = title
        shown.result.notification.body = body
        if !showsText { shown.result.text = nil }
        return shown
    }
}
