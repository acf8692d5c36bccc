import AdamantCore
import Testing

@testable import AdamantBus
@testable import AdamantDesktop
@testable import AdamantFetch

@Suite struct DesktopBubbleTests {
    static let account = try! Address("U5517006347330072401")
    static let partner = try! Address("U10629337621822775991")

    static func notification(_ body: String, kind: NotificationKind = .message, title: String = "Alice")
        -> WatchNotification
    {
        let result = FetchResult(
            id: TransactionID(number: 1), transaction: nil,
            notification: RenderedNotification(kind: kind, title: title, body: body),
            text: body, thread: partner)
        return WatchNotification(result: result, via: .socket, account: account)
    }

    static let dunst = NotificationServer(
        name: "dunst", vendor: "knopwob", version: "1.9.0", specificationVersion: "1.2",
        capabilities: ["actions", "body", "body-markup"])
    static let plain = NotificationServer(
        name: "plain", vendor: "", version: "1", specificationVersion: "1.2", capabilities: ["body"])

    @Test func markupInAMessageIsEscapedForAServerThatReadsMarkup() {
        let hostile = #"<b>bold</b> <a href="https://evil">x</a> <img src="file:///etc/passwd"> & &amp;"#
        let escaped = DesktopNotifier.escapingMarkup(hostile)
        #expect(
            escaped
                == #"&lt;b&gt;bold&lt;/b&gt; &lt;a href="https://evil"&gt;x&lt;/a&gt; &lt;img src="file:///etc/passwd"&gt; &amp; &amp;amp;"#
        )
        #expect(!escaped.contains("<") && !escaped.contains(">"))
    }

    @Test func aServerWithoutMarkupGetsTheTextAsItIs() async throws {
        let bubble = try await Self.bubble(Self.notification("a < b & c"), count: "2 new messages", server: Self.plain)
        #expect(bubble.body == "2 new messages\na < b & c")
        #expect(bubble.actions.isEmpty, "a server without actions is sent none")
    }

    @Test func aBubbleNamesTheAppItsCategoryAndItsActions() async throws {
        let bubble = try await Self.bubble(Self.notification("hi <3"), count: nil, server: Self.dunst)
        #expect(bubble.appName == "ADAMANT" && bubble.summary == "Alice" && bubble.body == "hi &lt;3")
        #expect(
            bubble.hints.category == "im.received" && bubble.hints.desktopEntry == "adm-push"
                && bubble.hints.urgency == .normal)
        #expect(bubble.actions.map(\.key) == ["default", "open", "mute-1h"])
        #expect(
            bubble.hints.busValues["category"] == .string("im.received")
                && bubble.hints.busValues["urgency"] == .byte(1))
    }

    @Test func aQuietPresentationIsLowUrgencyWithNoSound() {
        var quiet = Self.presentation(Self.notification("shh"))
        (quiet.urgency, quiet.silent) = (.low, true)
        let bubble = DesktopNotifier.bubble(
            for: quiet, count: nil, server: Self.dunst, appearance: DesktopNotifier.Appearance())
        #expect(
            bubble.hints.busValues["urgency"] == .byte(0) && bubble.hints.busValues["suppress-sound"] == .boolean(true))
        #expect(bubble.hints.busValues["sound-name"] == nil)
    }

    @Test func aProcessThatWillNotHearTheClickOffersNoAction() {
        let bubble = DesktopNotifier.bubble(
            for: Self.presentation(Self.notification("hi")), count: nil, server: Self.dunst,
            appearance: DesktopNotifier.Appearance(), actions: false)
        #expect(bubble.actions.isEmpty)
    }

    /// The keys of our actions come back as the delivery's actions, the same strings on the
    /// wire as the bubble offers; any other key is some other program's, and goes no further.
    @Test(arguments: [
        ("default", BubbleAction.click), ("open", .open), ("mute-1h", .mute), ("adm-open", nil), ("inline-reply", nil),
        ("Default", nil), ("", nil),
    ])
    func onlyTheKeysOfOurActionsBecomeEvents(key: String, action: BubbleAction?) {
        #expect(
            DesktopNotifier.serviceEvent(.actionInvoked(id: 7, key: key)) == action.map { .invoked(id: 7, action: $0) })
    }

    @Test func aCloseIsPassedOnAsItCame() {
        #expect(DesktopNotifier.serviceEvent(.closed(id: 7, reason: 2)) == .closed(id: 7, reason: 2))
    }

    /// A notifier's bubble, made without a bus: `bubble(for:)` is pure.
    static func bubble(_ notification: WatchNotification, count: String?, server: NotificationServer) async throws
        -> DesktopBubble
    {
        DesktopNotifier.bubble(
            for: presentation(notification), count: count, server: server, appearance: DesktopNotifier.Appearance())
    }

    static func presentation(_ notification: WatchNotification) -> NotificationPolicy.Presentation {
        let rendered = notification.result.notification
        return NotificationPolicy.Presentation(
            title: rendered.title, body: rendered.body, showsText: true, urgency: .normal, silent: false)
    }
}
