internal import AdamantBus
public import AdamantFetch

/// One notification as `Notify` sends it.
public struct DesktopBubble: Sendable, Hashable {
    /// A button on the bubble; the key `default` is a click on the bubble itself.
    public struct Action: Sendable, Hashable {
        /// What `ActionInvoked` names it by.
        public let key: String
        /// What the button says.
        public let label: String

        /// An action with `key` and `label`.
        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// How much a bubble should interrupt.
    public typealias Urgency = NotificationPolicy.Urgency

    /// The hints this notifier sends.
    public struct Hints: Sendable, Hashable {
        /// `im.received` for a message; the specification's categories.
        public var category: String?
        /// The installed `.desktop` file's name, without `.desktop`: the server takes the
        /// app's name and icon from it.
        public var desktopEntry: String?
        /// How much it interrupts.
        public var urgency: Urgency = .normal
        /// A sound from the freedesktop sound theme.
        public var soundName: String?
        /// No sound at all.
        public var suppressSound = false

        /// Hints with nothing set but normal urgency.
        public init() {}

        var busValues: [String: BusValue] {
            var values: [String: BusValue] = ["urgency": .byte(urgency.rawValue)]
            if let category { values["category"] = .string(category) }
            if let desktopEntry { values["desktop-entry"] = .string(desktopEntry) }
            if let soundName, !suppressSound { values["sound-name"] = .string(soundName) }
            if suppressSound { values["suppress-sound"] = .boolean(true) }
            return values
        }
    }

    /// The app it is from.
    public var appName: String
    /// An icon's name or absolute path; empty for none.
    public var icon: String
    /// The first line.
    public var summary: String
    /// The text, markup escaped when the server reads markup.
    public var body: String
    /// Its buttons.
    public var actions: [Action]
    /// Category, urgency, sound.
    public var hints: Hints
    /// Milliseconds on screen: -1 for the server's default, 0 for until dismissed.
    public var timeout: Int32

    /// A bubble as given.
    public init(
        appName: String, icon: String, summary: String, body: String, actions: [Action] = [], hints: Hints = Hints(),
        timeout: Int32 = -1
    ) {
        self.appName = appName
        self.icon = icon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.timeout = timeout
    }
}
