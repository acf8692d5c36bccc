import AdamantCore
import AdamantNodes
import Foundation
import Synchronization
import Testing

@testable import AdamantDesktop
@testable import AdamantFetch

/// The notifier against a real desktop: dbus-daemon, Xvfb and dunst (`TestDesktop`), read
/// back through `dunstctl` as the user would see it.
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

    /// Shows `notification` in full, as the default policy does.
    static func show(_ notification: WatchNotification, on notifier: DesktopNotifier) async throws {
        let rendered = notification.result.notification
        try await notifier.show(
            notification,
            as: .init(title: rendered.title, body: rendered.body, showsText: true, urgency: .normal, silent: false))
    }

    static func notifier(
        _ desktop: TestDesktop, record: (any UndeliveredRecord)? = nil, log: any LogSink = SilentLog(),
        requests: @escaping @Sendable (DesktopNotifier.Request) async -> Void = { _ in }
    ) async throws -> DesktopNotifier {
        try await DesktopNotifier.connect(
            environment: desktop.environment, record: record, requests: requests, log: log)
    }

    @Test func itNamesTheServerAndWhatItCanDo() async throws {
        try await TestDesktop.with { desktop in
            let server = try #require(await Self.notifier(desktop).server)
            #expect(server.name == "dunst" && server.specificationVersion == "1.2")
            #expect(server.capabilities.isSuperset(of: ["actions", "body", "body-markup"]), "\(server)")
        }
    }

    @Test func threeMessagesFromOnePartnerAreOneBubbleThatCountsThem() async throws {
        try await TestDesktop.with { desktop in
            let notifier = try await Self.notifier(desktop)
            for (index, text) in ["first", "second", "third"].enumerated() {
                try await Self.show(Self.notification(text, id: UInt64(index + 1)), on: notifier)
            }
            try await Self.show(
                Self.notification("Sent you 2 ADM", from: Self.bob, title: "Bob", kind: .transfer, id: 9), on: notifier)
            #expect(try await desktop.displayedCount() == 2)
            let shown = try await desktop.shown()
            #expect(shown.count == 2, "\(shown)")
            let alice = try #require(shown.first { $0["summary"] == "Alice" })
            #expect(alice["appname"] == "ADAMANT" && alice["category"] == "im.received")
            #expect(alice["body"] == "3 new messages\nthird")
            #expect(alice["message"] == TestDesktop.normalMessage(alice), "normal urgency")
            let bob = try #require(shown.first { $0["summary"] == "Bob" })
            #expect(bob["body"] == "Sent you 2 ADM")
        }
    }

    /// A bubble the user closes (`dunstctl close`: NotificationClosed, reason 2) ends its
    /// count: the chat's next message is a bubble of its own, with no count line.
    @Test func aClosedBubbleStartsTheChatAfresh() async throws {
        try await TestDesktop.with { desktop in
            let notifier = try await Self.notifier(desktop)
            try await Self.show(Self.notification("first", id: 1), on: notifier)
            try await Self.show(Self.notification("second", id: 2), on: notifier)
            #expect(try await desktop.displayedCount() == 1)
            #expect(try await desktop.dunstctl(["close"]).status == 0)
            let deadline = ContinuousClock.now + .seconds(20)
            while await notifier.bubbles != ChatBubbles() {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the close never reached the notifier")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Self.show(Self.notification("third", id: 3), on: notifier)
            #expect(try await desktop.displayedCount() == 1)
            let shown = try await desktop.shown()
            #expect(shown.map { $0["body"] } == ["third", "2 new messages\nsecond"], "\(shown)")
        }
    }

    @Test func markupInAMessageReachesTheServerEscaped() async throws {
        try await TestDesktop.with { desktop in
            let notifier = try await Self.notifier(desktop)
            try await Self.show(Self.notification(#"<b>bold</b> <img src="file:///etc/passwd">"#), on: notifier)
            let shown = try #require(try await desktop.shown().first)
            #expect(shown["body"] == #"&lt;b&gt;bold&lt;/b&gt; &lt;img src="file:///etc/passwd"&gt;"#)
        }
    }

    @Test func aClickOnTheBubbleAsksToOpenItsChat() async throws {
        try await TestDesktop.with { desktop in
            let asked = Mutex<[DesktopNotifier.Request]>([])
            let notifier = try await Self.notifier(desktop) { request in asked.withLock { $0.append(request) } }
            try await Self.show(Self.notification("hello"), on: notifier)
            // `dunstctl action` on a bubble with more than the default action opens its menu,
            // which runs dmenu: /bin/false here, so the test picks by closing with the default.
            _ = try await desktop.dunstctl(["action", "0"])
            let deadline = ContinuousClock.now + .seconds(20)
            while asked.withLock({ $0.isEmpty }) {
                guard ContinuousClock.now < deadline else {
                    Issue.record("no request came")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(asked.withLock { $0 } == [.open(ChatBubbles.Chat(account: Self.account, partner: Self.alice))])
        }
    }

    /// Held through quiet hours: nothing on screen, then one summary that names no chat and
    /// quotes nothing; a second release shows nothing more.
    @Test func heldNotificationsBecomeOneSummary() async throws {
        try await TestDesktop.with { desktop in
            let notifier = try await Self.notifier(desktop)
            await notifier.hold(Self.notification("one", id: 1))
            await notifier.hold(Self.notification("two", id: 2))
            await notifier.hold(Self.notification("three", from: Self.bob, title: "Bob", id: 3))
            #expect(try await desktop.displayedCount() == 0)
            try await notifier.releaseHeld()
            try await notifier.releaseHeld()
            let shown = try await desktop.shown()
            #expect(
                shown.map { [$0["summary"], $0["body"]] } == [["ADAMANT", "3 notifications in 2 chats while quiet"]],
                "\(shown)")
        }
    }

    /// Each quiet stretch's summary is a bubble of its own: a second one neither replaces the
    /// first nor counts it as a chat's messages.
    @Test func eachSummaryIsABubbleOfItsOwn() async throws {
        try await TestDesktop.with { desktop in
            let notifier = try await Self.notifier(desktop)
            await notifier.hold(Self.notification("one", id: 1))
            await notifier.hold(Self.notification("two", id: 2))
            try await notifier.releaseHeld()
            await notifier.hold(Self.notification("three", from: Self.bob, title: "Bob", id: 3))
            try await notifier.releaseHeld()
            #expect(try await desktop.displayedCount() == 2)
            let shown = try await desktop.shown()
            #expect(
                shown.map { $0["body"] } == [
                    "1 notification in 1 chat while quiet", "2 notifications in 1 chat while quiet",
                ], "\(shown)")
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

    /// A notifier that connects again after its service went away closes the connection it
    /// had: a watch whose service comes and goes does not pile up connections.
    @Test func reconnectingClosesTheOldConnection() async throws {
        try await TestDesktop.with { desktop in
            let notifier = try await Self.notifier(desktop)
            #expect(try await Self.connections(on: desktop) == 1)
            try await desktop.stopNotificationServer()
            await #expect(throws: DesktopUnavailable.self) {
                try await Self.show(Self.notification("away"), on: notifier)
            }
            try await desktop.startNotificationServer()
            try await notifier.deliverWaiting()
            let deadline = ContinuousClock.now + .seconds(10)
            while try await Self.connections(on: desktop) != 1 {
                guard ContinuousClock.now < deadline else {
                    Issue.record("\(try await Self.connections(on: desktop)) connections of this process")
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test func noServiceOnTheBusIsSaidAtConnect() async throws {
        try await TestDesktop.with(notificationServer: false) { desktop in
            await #expect {
                _ = try await Self.notifier(desktop)
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
                _ = try await DesktopNotifier.connect(
                    environment: ["DBUS_SESSION_BUS_ADDRESS": garbage], requests: { _ in }, log: SilentLog())
            } throws: { error in
                "\(error)".contains("DBUS_SESSION_BUS_ADDRESS '\(garbage)' is not a D-Bus address")
                    && !"\(error)".contains("refused")
            }
        }
    }

    @Test func noBusAtAllIsSaidAtConnect() async throws {
        await #expect {
            _ = try await DesktopNotifier.connect(
                environment: ["PATH": "/usr/bin"], requests: { _ in }, log: SilentLog())
        } throws: { error in
            "\(error)".contains("neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
        }
    }

    /// What a vanished service missed is recorded and shown when it is back, which is said
    /// once, at info.
    @Test func aServiceThatGoesAwayKeepsWhatItMissedAndShowsItWhenBack() async throws {
        try await TestDesktop.with { desktop in
            let record = RecordedDeliveries()
            let log = CollectedLog()
            let notifier = try await Self.notifier(desktop, record: record, log: log)
            try await Self.show(Self.notification("before", id: 1), on: notifier)
            try await desktop.stopNotificationServer()
            await #expect(throws: DesktopUnavailable.self) {
                try await Self.show(Self.notification("while away", from: Self.bob, title: "Bob", id: 2), on: notifier)
            }
            #expect(record.missed == [2] && record.delivered.isEmpty)
            try await desktop.startNotificationServer()
            try await notifier.deliverWaiting()
            let shown = try await desktop.shown()
            #expect(shown.map { $0["body"] } == ["while away"], "the new dunst shows the one it missed: \(shown)")
            #expect(record.delivered == [2])
            let back = log.lines.filter { $0.message.contains("notification service is back") }
            #expect(
                back.count == 1 && back.first?.level == .info && back.first?.message.contains("dunst") == true,
                "\(log.lines)")
        }
    }

    /// A message holding a noncharacter (U+FFFE: the renderer keeps it, as no control or
    /// format character) is shown with U+FFFD in its place, and holds up none after it: sd-bus
    /// refuses the character itself, so no Notify holding it can be made.
    @Test func aMessageHoldingANoncharacterIsShownAndHoldsUpNothing() async throws {
        try await TestDesktop.with { desktop in
            let record = RecordedDeliveries()
            let notifier = try await Self.notifier(desktop, record: record)
            let content = MessageContent(
                type: .chat, chatType: .message, amount: 0, plaintext: "odd \u{FFFE} one", incoming: true)
            let rendered = NotificationRenderer.render(content, title: "Alice")
            #expect(rendered.body.unicodeScalars.contains("\u{FFFE}"), "\(rendered.body.unicodeScalars.map(\.value))")
            do { try await Self.show(Self.notification(rendered.body, id: 1), on: notifier) } catch {
                Issue.record("not shown: \(error)")
            }
            try await Self.show(Self.notification("next", from: Self.bob, title: "Bob", id: 2), on: notifier)
            #expect(Set(try await desktop.shown().compactMap { $0["body"] }) == ["odd \u{FFFD} one", "next"])
            #expect(record.missed.isEmpty)
        }
    }

    /// A notification the service refuses (here the bus's policy denies `Notify`: an error
    /// answer, as a server's InvalidArgs would be) is asked again at most three times, then
    /// given up, logged and recorded as not delivered; the ones after it are not held up.
    @Test func aRefusedNotificationIsGivenUpAfterThreeRefusals() async throws {
        try await TestDesktop.with(refusingNotifications: true) { desktop in
            let record = RecordedDeliveries()
            let log = CollectedLog()
            let notifier = try await Self.notifier(desktop, record: record, log: log)
            await #expect(throws: DesktopUnavailable.self) {
                try await Self.show(Self.notification("refused", id: 1), on: notifier)
            }
            await #expect(throws: DesktopUnavailable.self) { try await notifier.deliverWaiting() }
            try await notifier.deliverWaiting()  // the third refusal: given up
            #expect(record.missed == [1])
            #expect(
                log.lines.contains {
                    $0.level == .warning && $0.message.contains("refused a notification 3 times")
                        && $0.message.contains("AccessDenied")
                }, "\(log.lines)")
            try await desktop.allowNotifications()
            try await Self.show(Self.notification("next", from: Self.bob, title: "Bob", id: 2), on: notifier)
            #expect(try await desktop.shown().map { $0["body"] } == ["next"])
            #expect(record.delivered.isEmpty, "the refused one stays recorded")
        }
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

/// What a notifier recorded as missed and as delivered, by transaction number.
final class RecordedDeliveries: UndeliveredRecord {
    private let ids = Mutex<(missed: [UInt64], delivered: [UInt64])>(([], []))
    var missed: [UInt64] { ids.withLock { $0.missed } }
    var delivered: [UInt64] { ids.withLock { $0.delivered } }
    func missed(_ id: TransactionID, account: Address) async { ids.withLock { $0.missed.append(id.number) } }
    func delivered(_ id: TransactionID, account: Address) async { ids.withLock { $0.delivered.append(id.number) } }
}
