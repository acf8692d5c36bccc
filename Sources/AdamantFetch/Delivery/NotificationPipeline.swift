public import AdamantCore
public import AdamantNodes
import AdamantStore

/// The whole way from the nodes to the user for a group of watched accounts: the watches and
/// the deliveries run in one task group, and what leaves the library leaves through
/// `Outputs`, once per notification (`show`) and once per click (`open`).
///
/// A notification goes from a watch's page or socket to its account's `NotificationDelivery`
/// (through `Notifier`), which decides it and hands it to `show`; its bubble, the service's
/// answers and the clicks go on inside. `adm-fetch watch` is this with lines, a hook and a
/// desktop as outputs; `Notifications` is this with a loop as the one output.
public struct NotificationPipeline: Sendable {
    /// What the pipeline hands out of the library.
    public struct Outputs: Sendable {
        /// A notification, as the policy lets it read, for the lines and the hook; it counts
        /// as handed over once this returns, and the watch stops when it throws.
        public var show: Notifier.Show
        /// A click on a chat's bubble: open the chat.
        public var open: @Sendable (ChatBubbles.Chat) -> Void
        /// An account's watch settled where it starts: the block height.
        public var started: @Sendable (Address, Int64) -> Void

        /// Outputs that show with `show`, and open and say nothing unless given.
        public init(
            show: @escaping Notifier.Show, open: @escaping @Sendable (ChatBubbles.Chat) -> Void = { _ in },
            started: @escaping @Sendable (Address, Int64) -> Void = { _, _ in }
        ) {
            (self.show, self.open, self.started) = (show, open, started)
        }
    }

    /// The accounts' watches.
    public let group: WatchGroup
    /// What the deliveries show, and where.
    public let delivery: NotificationDelivery.Configuration
    /// The desktop's notification service, when bubbles go there.
    public let service: (any BubbleService)?
    let events: any LogSink

    /// A pipeline from `group`'s watches through deliveries configured as `delivery`, with
    /// bubbles to `service` when there is one; `events` hears what happens, including one
    /// line per notification (its kind; the transaction only at debug). It keeps time by the
    /// clocks of the watches' node pool.
    public init(
        _ group: WatchGroup, delivery: NotificationDelivery.Configuration, service: (any BubbleService)? = nil,
        events: any LogSink = SilentLog()
    ) {
        (self.group, self.delivery, self.service, self.events) = (group, delivery, service, events)
    }

    /// Watches and delivers until the calling task is cancelled (then returns), or a watch
    /// fails (then throws, as `WatchGroup.run` does); what waits for the desktop is then
    /// recorded for the next process.
    public func run(from start: WatchStart = .resume, outputs: Outputs) async throws(WatchGroup.Failure) {
        var logs: [Address: NotificationLog] = [:]
        var fetchers: [Address: Fetcher] = [:]
        for watcher in group.watchers {
            let account = await watcher.account
            (logs[account], fetchers[account]) = (watcher.log, watcher.fetcher)
        }
        guard let clocks = group.watchers.first?.pool.clocks else { return }
        let notifier = await Notifier(
            logs: logs, configuration: delivery, service: service, show: outputs.show, open: outputs.open,
            log: events, clocks: clocks)
        let (group, events, fetched) = (self.group, self.events, fetchers)
        let ended = await withTaskGroup(of: Void.self) { tasks -> Result<Void, WatchGroup.Failure> in
            tasks.addTask { await notifier.run { id, account in await fetched[account]?.fetch(PushPayload(id: id)) } }
            defer { tasks.cancelAll() }
            do throws(WatchGroup.Failure) {
                try await group.run(from: start, onStart: outputs.started) { found throws(HandOverFailure) in
                    Self.log(found.result, events)
                    try await notifier.found(found)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try ended.get()
    }

    /// One line per notification: its kind at info, which transaction only at debug, never
    /// what it says.
    static func log(_ result: FetchResult, _ events: any LogSink) {
        let detail =
            events.logs(.debug)
            ? " (transaction \(result.id)\(result.transaction?.height.map { ", block \($0)" } ?? ""))" : ""
        let kind = result.notification.kind.rawValue
        if let failure = result.failure {
            events.log(.warning, "watch: notification with the generic text: \(kind)\(detail): \(failure)")
        } else {
            events.log(.info, "watch: notification: \(kind)\(detail)")
        }
    }
}
