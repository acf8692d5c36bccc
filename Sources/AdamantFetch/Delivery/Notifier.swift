public import AdamantCore
public import AdamantNodes
public import AdamantStore
import Synchronization

/// Runs each watched account's `NotificationDelivery`: the one owner of their state. A found
/// notification is decided and handed to the outputs at once, in the caller's task; bubbles,
/// the service's answers and events, the retry tick and what earlier processes missed go on in
/// `run`, one task tree, so that a service that hangs holds up no line.
public final class Notifier: Sendable {
    /// Hands a notification, as the policy lets it read, to the lines and the hook; throws
    /// when it could not be handed over (the watch then stops before it).
    public typealias Show = @Sendable (WatchNotification) async throws(HandOverFailure) -> Void

    /// How often a service that went away is asked again, and a held summary looked at.
    public static let retryInterval: Duration = .seconds(10)

    private let deliveries: Mutex<[Address: NotificationDelivery]>
    private let logs: [Address: NotificationLog]
    private let service: (any BubbleService)?
    private let show: Show
    private let open: @Sendable (ChatBubbles.Chat) -> Void
    private let log: any LogSink
    private let wallClock: any WallClock
    private let clock: AnyClock
    /// Bubbles and connections for `run` to send, in order.
    private let work: (stream: AsyncStream<Work>, continuation: AsyncStream<Work>.Continuation)

    enum Work: Sendable {
        case notify(Address, NotificationDelivery.Bubble)
        case connect(Address)
    }

    /// A notifier for `logs`' accounts, each with `configuration` and the chats its log has
    /// muted; bubbles go to `service` when there is one.
    public init(
        logs: [Address: NotificationLog], configuration: NotificationDelivery.Configuration,
        service: (any BubbleService)?, show: @escaping Show,
        open: @escaping @Sendable (ChatBubbles.Chat) -> Void = { _ in }, log: any LogSink, clocks: Clocks
    ) async {
        let wallClock = clocks.wall
        var deliveries: [Address: NotificationDelivery] = [:]
        for (account, accountLog) in logs {
            var accountConfiguration = configuration
            do {
                try await accountConfiguration.policy.muteChats(
                    of: account, keptIn: accountLog, now: wallClock.unixMillis())
            } catch {
                log.log(.warning, "watch: the muted chats cannot be read: \(error)")
            }
            deliveries[account] = NotificationDelivery(accountConfiguration)
        }
        self.deliveries = Mutex(deliveries)
        (self.logs, self.service, self.show, self.open, self.log) = (logs, service, show, open, log)
        (self.wallClock, self.clock) = (clocks.wall, clocks.monotonic)
        work = AsyncStream.makeStream()
    }

    /// Decides `notification` and hands it to the outputs; its bubble goes on in `run`.
    public func found(_ notification: WatchNotification) async throws(HandOverFailure) {
        for action in handle(.found(notification), for: notification.account) {
            if case .show(let shown) = action {
                try await show(shown)
            } else {
                await perform(action, notification.account)
            }
        }
    }

    /// Delivers bubbles until cancelled, first what earlier processes did not put on the
    /// desktop (fetched again with `refetch`); then records what is left as undelivered.
    public func run(refetch: @escaping @Sendable (TransactionID, Address) async -> FetchResult?) async {
        await withDiscardingTaskGroup { group in
            if let service {
                group.addTask {
                    for await event in service.events { await self.handleEverywhere(event.event) }
                }
                group.addTask { await self.showMissed(refetch) }
            }
            group.addTask {
                while (try? await self.clock.sleep(for: Self.retryInterval)) != nil {
                    await self.handleEverywhere(.tick)
                }
            }
            for await work in self.work.stream {
                group.addTask { await self.send(work) }
            }
            group.cancelAll()
        }
        await handleEverywhere(.ending)
    }

    private func send(_ work: Work) async {
        guard let service else { return }
        switch work {
        case .notify(let account, let bubble):
            do throws(ServiceFailure) {
                let id = try await service.notify(bubble)
                await handleAndPerform(.notified(serial: bubble.serial, id: id), for: account)
            } catch {
                switch error {
                case .refused(let reason): await handleAndPerform(.refused(serial: bubble.serial, reason), for: account)
                case .unreachable(let reason):
                    await handleAndPerform(.unreachable(serial: bubble.serial, reason), for: account)
                }
            }
        case .connect(let account):
            do throws(ServiceFailure) {
                let server = try await service.reconnect()
                await handleEverywhere(.connected(server: server))
            } catch {
                await handleAndPerform(.unreachable(serial: nil, error.description), for: account)
            }
        }
    }

    /// The notifications the desktop missed before, fetched again by id and shown as the
    /// policy says now; one that is gone from the nodes, or no longer shown, is let go.
    private func showMissed(_ refetch: @Sendable (TransactionID, Address) async -> FetchResult?) async {
        for (account, accountLog) in logs.sorted(by: { $0.key.description < $1.key.description }) {
            let ids: [TransactionID]
            do { ids = try await accountLog.undelivered(account: account) } catch {
                log.log(.warning, "watch: what the desktop missed before cannot be read: \(error)")
                continue
            }
            guard !ids.isEmpty else { continue }
            let notifications = "notification\(ids.count == 1 ? "" : "s")"
            log.log(.info, "desktop: \(ids.count) \(notifications) the desktop missed before, shown now")
            for id in ids {
                let result = await refetch(id, account)
                guard !Task.isCancelled else { return }
                guard let result else { continue }
                await handleAndPerform(
                    .missed(WatchNotification(result: result, via: .poll, account: account)), for: account)
            }
        }
    }

    private func handle(_ event: NotificationDelivery.Event, for account: Address) -> [NotificationDelivery.Action] {
        let now = NotificationDelivery.Moment(unixMillis: wallClock.unixMillis())
        return deliveries.withLock { $0[account]?.handle(event, at: now) ?? [] }
    }

    private func handleAndPerform(_ event: NotificationDelivery.Event, for account: Address) async {
        for action in handle(event, for: account) { await perform(action, account) }
    }

    private func handleEverywhere(_ event: NotificationDelivery.Event) async {
        let now = NotificationDelivery.Moment(unixMillis: wallClock.unixMillis())
        let actions = deliveries.withLock { deliveries in
            deliveries.keys.sorted { $0.description < $1.description }.map { account in
                (account, deliveries[account]?.handle(event, at: now) ?? [])
            }
        }
        for (account, accountActions) in actions {
            for action in accountActions { await perform(action, account) }
        }
    }

    private func perform(_ action: NotificationDelivery.Action, _ account: Address) async {
        switch action {
        case .show:
            // Only a found notification is shown, and `found` shows it.
            break
        case .notify(let bubble): work.continuation.yield(.notify(account, bubble))
        case .connect: work.continuation.yield(.connect(account))
        case .open(let chat): open(chat)
        case .log(let level, let message): log.log(level, message)
        case .record(let record): await keep(record, account)
        }
    }

    private func keep(_ record: NotificationDelivery.Record, _ account: Address) async {
        guard let accountLog = logs[account] else { return }
        switch record {
        case .undelivered(let ids):
            for id in ids {
                do { try await accountLog.recordUndelivered(id, account: account, at: wallClock.unixMillis()) } catch {
                    log.log(.warning, "watch: transaction \(id) is not recorded as missing from the desktop: \(error)")
                }
            }
        case .delivered(let ids):
            for id in ids {
                do { try await accountLog.forgetUndelivered(id, account: account) } catch {
                    log.log(.warning, "watch: transaction \(id) stays recorded as missing from the desktop: \(error)")
                }
            }
        case .muted(let chat, let until):
            do { try await accountLog.mute(chat.partner, account: account, until: until) } catch {
                log.log(.warning, "watch: the mute of \(chat.partner) lasts only while this watch runs: \(error)")
            }
        }
    }
}

extension NotificationPolicy {
    /// Adds the chats of `account` that `log` keeps muted ("Mute 1 hour" on a bubble) at `now`.
    public mutating func muteChats(of account: Address, keptIn log: NotificationLog, now: Int64)
        async throws(StoreError)
    {
        for (partner, until) in try await log.mutedChats(account: account, now: now) {
            mutedChats[ChatBubbles.Chat(account: account, partner: partner)] = until
        }
    }
}
