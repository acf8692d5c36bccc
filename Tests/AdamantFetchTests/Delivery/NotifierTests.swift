import AdamantCore
import AdamantNodes
import AdamantStore
import Foundation
import Synchronization
import Testing

@testable import AdamantFetch

/// `Notifier`, the executor of the delivery machine, against a service of the test's own: what
/// it shows, what it puts on the "desktop", what a click opens and what it records when the
/// service is gone. No bus, no notification server.
@Suite("the notifier", .timeLimit(.minutes(1)))
struct NotifierTests {
    /// A notification service that keeps the bubbles it is given, numbered from 1, or refuses
    /// them as unreachable while `away`; its events are the test's to send.
    final class FakeService: BubbleService {
        let events: AsyncStream<ServiceEvent>
        let continuation: AsyncStream<ServiceEvent>.Continuation
        let shown = Mutex<[NotificationDelivery.Bubble]>([])
        let away = Mutex(false)

        init() { (events, continuation) = AsyncStream.makeStream() }

        func notify(_ bubble: NotificationDelivery.Bubble) async throws(ServiceFailure) -> UInt32 {
            if away.withLock({ $0 }) { throw .unreachable("the test's service is away") }
            return shown.withLock { shown in
                shown.append(bubble)
                return UInt32(shown.count)
            }
        }

        func reconnect() async throws(ServiceFailure) -> String {
            if away.withLock({ $0 }) { throw .unreachable("still away") }
            return "the test's service"
        }
    }

    static let account = NotificationDeliveryTests.account

    /// Runs `body` with a notifier for `account` on a fresh log and `service`, its `run`
    /// going on beside it.
    static func with(
        _ service: FakeService, show: @escaping Notifier.Show = { _ in },
        open: @escaping @Sendable (ChatBubbles.Chat) -> Void = { _ in },
        _ body: (Notifier, NotificationLog) async throws -> Void
    ) async throws {
        let home = NSTemporaryDirectory() + "adm-notifier-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: home) }
        let log = try NotificationLog(home: home)
        let notifier = await Notifier(
            logs: [account: log], configuration: .init(desktop: true, stays: true), service: service, show: show,
            open: open, log: SilentLog(), clocks: Clocks(wall: SystemWallClock(), monotonic: AnyClock(ManualClock())))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await notifier.run { _, _ in nil } }
            defer { group.cancelAll() }
            try await body(notifier, log)
        }
    }

    @Test func aFoundNotificationIsShownOnceAndPutInABubble() async throws {
        let service = FakeService()
        let lines = Mutex<[String]>([])
        let show: Notifier.Show = { notification in
            lines.withLock { $0.append(notification.result.notification.body) }
        }
        try await Self.with(service, show: show) { notifier, _ in
            try await notifier.found(NotificationDeliveryTests.notification("hello", id: 7))
            #expect(lines.withLock { $0 } == ["hello"], "shown before found returns")
            #expect(await eventually { service.shown.withLock { $0.count } == 1 }, "the bubble")
            let bubble = try #require(service.shown.withLock { $0.first })
            #expect(bubble.presentation.title == "Alice" && bubble.presentation.body == "hello" && bubble.actions)
        }
    }

    @Test func aClickOnTheBubbleOpensItsChat() async throws {
        let service = FakeService()
        let opened = Mutex<[ChatBubbles.Chat]>([])
        let open: @Sendable (ChatBubbles.Chat) -> Void = { chat in opened.withLock { $0.append(chat) } }
        try await Self.with(service, open: open) { notifier, _ in
            try await notifier.found(NotificationDeliveryTests.notification("hi", id: 8))
            #expect(await eventually { service.shown.withLock { $0.count } == 1 }, "the bubble")
            // Another program's bubble is not ours to open.
            service.continuation.yield(.invoked(id: 99, action: .open))
            service.continuation.yield(.invoked(id: 1, action: .click))
            #expect(await eventually { !opened.withLock { $0.isEmpty } }, "the chat opened")
            #expect(
                opened.withLock { $0 }
                    == [ChatBubbles.Chat(account: Self.account, partner: NotificationDeliveryTests.alice)])
        }
    }

    @Test func aServiceAwayLeavesTheNotificationRecordedForTheNextProcess() async throws {
        let service = FakeService()
        service.away.withLock { $0 = true }
        try await Self.with(service) { notifier, log in
            try await notifier.found(NotificationDeliveryTests.notification("later", id: 9))
            #expect(
                try await eventually { try await log.undelivered(account: Self.account) == [TransactionID(number: 9)] },
                "the record")
            #expect(service.shown.withLock { $0.isEmpty })
        }
    }
}
