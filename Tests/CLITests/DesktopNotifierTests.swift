import AdamantCore
import AdamantNodes
import AdamantStore
import Foundation
import Synchronization
import Testing

@testable import AdamantDesktop
@testable import AdamantFetch

/// The notifier against a real desktop: dbus-daemon, Xvfb and dunst (`TestDesktop`), read
/// back through `dunstctl` as the user would see it. What the delivery decides is tested
/// without a bus (NotificationDeliveryTests); this is what only a real service can show.
@Suite("desktop notifier", .timeLimit(.minutes(2)))
struct DesktopNotifierTests {
    static let account = try! Address("U5517006347330072401")
    static let alice = try! Address("U10629337621822775991")
    static let bob = try! Address("U8916295525136600565")

    static func notification(
        _ body: String, from partner: Address = alice, title: String = "Alice", kind: NotificationKind = .message,
        id: UInt64 = 1
    ) -> WatchNotification {
        let result = FetchResult(
            id: TransactionID(number: id), transaction: nil,
            notification: RenderedNotification(kind: kind, title: title, body: body), text: body,
            thread: partner)
        return WatchNotification(result: result, via: .socket, account: account)
    }

    static func bubble(_ body: String, serial: Int = 1, actions: Bool = true) -> NotificationDelivery.Bubble {
        NotificationDelivery.Bubble(
            serial: serial,
            presentation: .init(title: "Alice", body: body, showsText: true, urgency: .normal, silent: false),
            count: nil, replacing: 0, actions: actions)
    }

    /// Runs `body` with a notifier for `account` whose log is in a fresh home, delivering to
    /// `desktop` on `clock` until `body` returns.
    static func withNotifier(
        _ desktop: TestDesktop, policy: NotificationPolicy = NotificationPolicy(), clock: ManualClock = ManualClock(),
        wallClock: any WallClock = SystemWallClock(), log: any LogSink = SilentLog(),
        open: @escaping @Sendable (ChatBubbles.Chat) -> Void = { _ in },
        _ body: (Notifier, NotificationLog, DesktopNotifier) async throws -> Void
    ) async throws {
        let home = NSTemporaryDirectory() + "notifier-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: home) }
        let notificationLog = try NotificationLog(home: home)
        let service = try await DesktopNotifier.connect(environment: desktop.environment)
        let notifier = await Notifier(
            logs: [account: notificationLog], configuration: .init(policy: policy, desktop: true, stays: true),
            service: service, show: { _ in }, open: open, log: log,
            clocks: Clocks(wall: wallClock, monotonic: AnyClock(clock)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await notifier.run { _, _ in nil } }
            defer { group.cancelAll() }
            try await body(notifier, notificationLog, service)
        }
    }

    /// Polls `condition` until it holds, for up to 20 s.
    static func eventually(
        _ what: String, _ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(what) never came", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func itNamesTheServerAndWhatItCanDo() async throws {
        try await TestDesktop.with { desktop in
            let server = try #require(try await DesktopNotifier.connect(environment: desktop.environment).server)
            #expect(server.name == "dunst" && server.specificationVersion == "1.2")
            #expect(server.capabilities.isSuperset(of: ["actions", "body", "body-markup"]), "\(server)")
        }
    }

    /// The delivery's replacing and counting, as dunst shows it: one bubble per chat.
    @Test func threeMessagesFromOnePartnerAreOneBubbleThatCountsThem() async throws {
        try await TestDesktop.with { desktop in
            try await Self.withNotifier(desktop) { notifier, _, _ in
                for (index, text) in ["first", "second", "third"].enumerated() {
                    try await notifier.found(Self.notification(text, id: UInt64(index + 1)))
                }
                try await notifier.found(
                    Self.notification("Sent you 2 ADM", from: Self.bob, title: "Bob", kind: .transfer, id: 9))
                // In the queue's order: Bob's bubble is the last.
                try await Self.eventually("two bubbles") { try await desktop.displayedCount() == 2 }
                let shown = try await desktop.shown()
                #expect(
                    Set(shown.compactMap { $0["body"] }) == ["3 new messages\nthird", "Sent you 2 ADM"], "\(shown)")
                let alice = try #require(shown.first { $0["summary"] == "Alice" })
                #expect(alice["appname"] == "ADAMANT" && alice["category"] == "im.received")
                #expect(alice["message"] == TestDesktop.normalMessage(alice), "normal urgency")
            }
        }
    }

    /// The user closing a bubble (`dunstctl close`) comes back as NotificationClosed, reason 2.
    @Test func aClosedBubbleIsSaidWithItsReason() async throws {
        try await TestDesktop.with { desktop in
            let service = try await DesktopNotifier.connect(environment: desktop.environment)
            let id = try await service.notify(Self.bubble("first"))
            #expect(try await desktop.dunstctl(["close"]).status == 0)
            var events = service.events.makeAsyncIterator()
            #expect(await events.next() == .closed(id: id, reason: 2))
        }
    }

    @Test func markupInAMessageReachesTheServerEscaped() async throws {
        try await TestDesktop.with { desktop in
            let service = try await DesktopNotifier.connect(environment: desktop.environment)
            _ = try await service.notify(Self.bubble(#"<b>bold</b> <img src="file:///etc/passwd">"#))
            let shown = try #require(try await desktop.shown().first)
            #expect(shown["body"] == #"&lt;b&gt;bold&lt;/b&gt; &lt;img src="file:///etc/passwd"&gt;"#)
        }
    }

    /// A click on the bubble reaches the delivery, which opens the chat.
    @Test func aClickOnTheBubbleOpensItsChat() async throws {
        try await TestDesktop.with { desktop in
            let opened = Mutex<[ChatBubbles.Chat]>([])
            try await Self.withNotifier(desktop, open: { chat in opened.withLock { $0.append(chat) } }) {
                notifier, _, _ in
                try await notifier.found(Self.notification("hello"))
                try await Self.eventually("the bubble") { try await desktop.displayedCount() == 1 }
                // `dunstctl action` on a bubble with more than the default action opens its menu,
                // which runs dmenu: /bin/false here, so the test picks by closing with the default.
                _ = try await desktop.dunstctl(["action", "0"])
                try await Self.eventually("the open request") { !opened.withLock { $0.isEmpty } }
                #expect(opened.withLock { $0 } == [ChatBubbles.Chat(account: Self.account, partner: Self.alice)])
            }
        }
    }

    /// `--quiet-mode hold`: what comes in quiet hours is put on no bubble and recorded; at the
    /// first retry tick after they end (both clocks moved by the test), one summary at normal
    /// urgency names no chat and quotes nothing, and clears the record.
    @Test func heldNotificationsBecomeOneSummaryWhenTheQuietHoursEnd() async throws {
        try await TestDesktop.with { desktop in
            var policy = NotificationPolicy()
            policy.quiet = NotificationPolicy.QuietHours("22:00-07:00")
            policy.quietMode = .hold
            // 23:30 local time today, whatever the zone.
            let now = SystemWallClock().unixMillis()
            let midnight = now - Int64(LocalTime.minuteOfDay(unixMillis: now)) * 60_000 - now % 60_000
            let wallClock = ManualWallClock(unixMillis: midnight + (23 * 60 + 30) * 60_000)
            let clock = ManualClock()
            try await Self.withNotifier(desktop, policy: policy, clock: clock, wallClock: wallClock) {
                notifier, home, _ in
                try await notifier.found(Self.notification("one", id: 1))
                try await notifier.found(Self.notification("two", id: 2))
                try await notifier.found(Self.notification("three", from: Self.bob, title: "Bob", id: 3))
                #expect(try await home.undelivered(account: Self.account).map(\.number) == [1, 2, 3])
                await clock.waitForSleepers(1)
                clock.advance(by: Notifier.retryInterval)
                await clock.waitForSleepers(1)
                #expect(try await desktop.displayedCount() == 0, "no bubble while quiet")
                wallClock.advance(byMillis: 8 * 3_600_000)  // 07:30
                clock.advance(by: Notifier.retryInterval)
                try await Self.eventually("the summary") { try await desktop.displayedCount() == 1 }
                let shown = try await desktop.shown()
                #expect(
                    shown.map { [$0["summary"], $0["body"]] } == [
                        ["ADAMANT", "3 notifications in 2 chats while quiet"]
                    ],
                    "\(shown)")
                #expect(
                    shown.first.map { $0["message"] == TestDesktop.normalMessage($0) } == true,
                    "normal urgency: \(shown)")
                try await Self.eventually("the record cleared") {
                    try await home.undelivered(account: Self.account).isEmpty
                }
            }
        }
    }

    /// A notifier that connects again after its service went away closes the connection it
    /// had: a watch whose service comes and goes does not pile up connections.
    @Test func reconnectingClosesTheOldConnection() async throws {
        try await TestDesktop.with { desktop in
            let service = try await DesktopNotifier.connect(environment: desktop.environment)
            #expect(try await Self.connections(on: desktop) == 1)
            try await desktop.stopNotificationServer()
            await #expect(throws: ServiceFailure.self) { try await service.notify(Self.bubble("away")) }
            try await desktop.startNotificationServer()
            _ = try await service.reconnect()
            try await Self.eventually("one connection") { try await Self.connections(on: desktop) == 1 }
        }
    }

    @Test func noServiceOnTheBusIsSaidAtConnect() async throws {
        try await TestDesktop.with(notificationServer: false) { desktop in
            await #expect {
                _ = try await DesktopNotifier.connect(environment: desktop.environment)
            } throws: { error in
                guard let error = error as? DesktopUnavailable, case .noService = error else { return false }
                return true
            }
        }
    }

    /// An address that is no D-Bus address is said to be one, not a refused connection.
    @Test func aGarbageBusAddressIsSaidToBeNoAddress() async throws {
        for garbage in [
            "garbage", "unix", ":path=/tmp/x", "unix:path", "tcp:host=127.0.0.1,port", "nonsense:path=/tmp/x",
        ] {
            await #expect {
                _ = try await DesktopNotifier.connect(environment: ["DBUS_SESSION_BUS_ADDRESS": garbage])
            } throws: { error in
                "\(error)".contains("DBUS_SESSION_BUS_ADDRESS '\(garbage)' is not a D-Bus address")
                    && !"\(error)".contains("refused")
            }
        }
    }

    @Test func noBusAtAllIsSaidAtConnect() async throws {
        await #expect {
            _ = try await DesktopNotifier.connect(environment: ["PATH": "/usr/bin"])
        } throws: { error in
            "\(error)".contains("neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
        }
    }

    /// What a vanished service missed is recorded in the home's log and shown when it is
    /// back, at the retry tick of the notifier's clock, which is said once, at info.
    @Test func aServiceThatGoesAwayKeepsWhatItMissedAndShowsItWhenBack() async throws {
        try await TestDesktop.with { desktop in
            let clock = ManualClock()
            let log = CollectedLog()
            try await Self.withNotifier(desktop, clock: clock, log: log) { notifier, home, _ in
                try await notifier.found(Self.notification("before", id: 1))
                try await Self.eventually("the first bubble") { try await desktop.displayedCount() == 1 }
                try await desktop.stopNotificationServer()
                try await notifier.found(Self.notification("while away", from: Self.bob, title: "Bob", id: 2))
                try await Self.eventually("the record of the missed one") {
                    try await home.undelivered(account: Self.account) == [TransactionID(number: 2)]
                }
                try await desktop.startNotificationServer()
                await clock.waitForSleepers(1)
                clock.advance(by: Notifier.retryInterval)
                try await Self.eventually("the missed one on the new dunst") { try await desktop.displayedCount() == 1 }
                #expect(try await desktop.shown().map { $0["body"] } == ["while away"])
                try await Self.eventually("the record cleared") {
                    try await home.undelivered(account: Self.account).isEmpty
                }
                let back = log.lines.filter { $0.message.contains("notification service is back") }
                #expect(
                    back.count == 1 && back.first?.level == .info && back.first?.message.contains("dunst") == true,
                    "\(log.lines)")
            }
        }
    }

    /// A message holding a noncharacter (U+FFFE: the renderer keeps it, as no control or
    /// format character) is shown with U+FFFD in its place: sd-bus refuses the character
    /// itself, so no Notify holding it could be made.
    @Test func aMessageHoldingANoncharacterIsShown() async throws {
        try await TestDesktop.with { desktop in
            let service = try await DesktopNotifier.connect(environment: desktop.environment)
            let content = MessageContent(
                type: .chat, chatType: .message, amount: 0, plaintext: "odd \u{FFFE} one", incoming: true)
            let rendered = NotificationRenderer.render(content, title: "Alice")
            #expect(rendered.body.unicodeScalars.contains("\u{FFFE}"), "\(rendered.body.unicodeScalars.map(\.value))")
            _ = try await service.notify(Self.bubble(rendered.body))
            #expect(try await desktop.shown().compactMap { $0["body"] } == ["odd \u{FFFD} one"])
        }
    }

    /// A service that answers Notify with an error (here the bus's policy denies it, as a
    /// server's InvalidArgs would) is a refusal, which the delivery gives up after three; not
    /// a service away.
    @Test func anErrorAnswerIsARefusal() async throws {
        try await TestDesktop.with(refusingNotifications: true) { desktop in
            let service = try await DesktopNotifier.connect(environment: desktop.environment)
            await #expect {
                _ = try await service.notify(Self.bubble("refused"))
            } throws: { error in
                guard case .refused(let reason) = error as? ServiceFailure else { return false }
                return reason.contains("AccessDenied")
            }
            try await desktop.allowNotifications()
            _ = try await service.notify(Self.bubble("next"))
            #expect(try await desktop.shown().map { $0["body"] } == ["next"])
        }
    }

    /// The bus connections this process holds, as the bus daemon knows them.
    static func connections(on desktop: TestDesktop) async throws -> Int {
        func call(_ arguments: [String]) async throws -> String {
            let result = try await run(
                "/usr/bin/dbus-send",
                ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"] + arguments,
                environment: desktop.environment)
            guard result.status == 0 else { throw DesktopFailure("dbus-send failed: \(result.stderr)") }
            return result.stdout
        }
        let names = try await call(["org.freedesktop.DBus.ListNames"]).split(separator: "\"").filter {
            $0.hasPrefix(":")
        }
        var ours = 0
        for name in names {
            let owner = try? await call(["org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(name)"])
            if owner?.contains("uint32 \(getpid())") == true { ours += 1 }
        }
        return ours
    }
}

/// A log's lines, for tests to read.
final class CollectedLog: LogSink {
    private let collected = Mutex<[(level: LogLevel, message: String)]>([])
    var lines: [(level: LogLevel, message: String)] { collected.withLock { $0 } }
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let line = (level, message())
        collected.withLock { $0.append(line) }
    }
}
