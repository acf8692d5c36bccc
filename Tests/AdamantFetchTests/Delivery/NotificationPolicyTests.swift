import AdamantCore
import Testing

@testable import AdamantFetch

@Suite struct NotificationPolicyTests {
    static let account = try! Address("U5517006347330072401")
    static let alice = try! Address("U10629337621822775991")
    static let bob = try! Address("U8916295525136600565")
    let chat = ChatBubbles.Chat(account: account, partner: alice)
    let message = RenderedNotification(kind: .message, title: "Alice", body: "my PIN is 4321")
    let transfer = RenderedNotification(kind: .transfer, title: "Alice", body: "Sent you 2 ADM")
    let noon = 12 * 60

    func presentation(_ decision: NotificationPolicy.Decision) -> NotificationPolicy.Presentation? {
        if case .show(let shown) = decision { return shown }
        return nil
    }

    @Test func theDefaultShowsEverythingInFull() {
        let shown = presentation(NotificationPolicy().decide(message, in: chat, unixMillis: 0, minute: noon))
        #expect(
            shown == .init(title: "Alice", body: "my PIN is 4321", showsText: true, urgency: .normal, silent: false))
        #expect(
            NotificationPolicy().decide(
                RenderedNotification(kind: .signal, title: "", body: "", shown: false), in: chat, unixMillis: 0,
                minute: noon) == .drop)
    }

    @Test func senderKeepsTheNameAndNoneKeepsNothing() {
        var policy = NotificationPolicy()
        policy.preview = .sender
        #expect(
            presentation(policy.decide(message, in: chat, unixMillis: 0, minute: noon)).map { [$0.title, $0.body] } == [
                "Alice", "New message",
            ])
        #expect(
            presentation(policy.decide(transfer, in: chat, unixMillis: 0, minute: noon)).map { [$0.title, $0.body] }
                == ["Alice", "New transfer"])
        policy.preview = .none
        for notification in [message, transfer] {
            let shown = presentation(policy.decide(notification, in: chat, unixMillis: 0, minute: noon))
            #expect(shown.map { [$0.title, $0.body] } == ["ADAMANT", "New message"] && shown?.showsText == false)
        }
    }

    @Test func aMutedPartnerIsDroppedForeverOrUntilItsTime() {
        var policy = NotificationPolicy()
        policy.muted = [Self.alice: nil, Self.bob: 1_000]
        #expect(policy.decide(message, in: chat, unixMillis: 5_000, minute: noon) == .drop)
        let withBob = ChatBubbles.Chat(account: Self.account, partner: Self.bob)
        #expect(policy.decide(message, in: withBob, unixMillis: 999, minute: noon) == .drop)
        #expect(
            presentation(policy.decide(message, in: withBob, unixMillis: 1_000, minute: noon)) != nil,
            "the mute has ended")
    }

    @Test func aMutedChatIsOnlyThatAccountsChat() {
        var policy = NotificationPolicy()
        policy.mutedChats = [chat: 10_000]
        #expect(policy.decide(message, in: chat, unixMillis: 0, minute: noon) == .drop)
        let otherAccount = ChatBubbles.Chat(account: Self.bob, partner: Self.alice)
        #expect(presentation(policy.decide(message, in: otherAccount, unixMillis: 0, minute: noon)) != nil)
        #expect(presentation(policy.decide(message, in: chat, unixMillis: 10_000, minute: noon)) != nil)
    }

    @Test func kindsNotAskedForAreDropped() {
        var policy = NotificationPolicy()
        policy.kinds = [.messages]
        #expect(policy.decide(transfer, in: chat, unixMillis: 0, minute: noon) == .drop)
        #expect(
            policy.decide(
                RenderedNotification(kind: .reaction, title: "Alice", body: "Reacted 👍"), in: chat, unixMillis: 0,
                minute: noon) == .drop)
        #expect(
            presentation(
                policy.decide(
                    RenderedNotification(kind: .reply, title: "Alice", body: "sure"), in: chat, unixMillis: 0,
                    minute: noon)) != nil)
    }

    @Test func quietHoursWrapPastMidnightAndSilenceOrHold() throws {
        let night = try #require(NotificationPolicy.QuietHours("22:00-07:00"))
        #expect(night.contains(minute: 23 * 60) && night.contains(minute: 0) && night.contains(minute: 6 * 60 + 59))
        #expect(
            !night.contains(minute: 7 * 60) && !night.contains(minute: noon) && !night.contains(minute: 21 * 60 + 59))
        let lunch = try #require(NotificationPolicy.QuietHours("12:00-13:30"))
        #expect(
            lunch.contains(minute: noon) && !lunch.contains(minute: 13 * 60 + 30) && lunch.description == "12:00-13:30")
        var policy = NotificationPolicy()
        policy.quiet = night
        let silent = presentation(policy.decide(message, in: chat, unixMillis: 0, minute: 23 * 60))
        #expect(silent?.urgency == .low && silent?.silent == true)
        #expect(presentation(policy.decide(message, in: chat, unixMillis: 0, minute: noon))?.silent == false)
        policy.quietMode = .hold
        guard case .hold(let held) = policy.decide(message, in: chat, unixMillis: 0, minute: 23 * 60) else {
            Issue.record("not held")
            return
        }
        #expect(held.body == "my PIN is 4321")
    }

    @Test(arguments: [
        "", "22:00", "22:00-22:00", "24:00-07:00", "22:60-07:00", "2:00-07:00", "22:00-07:00-08:00", "aa:bb-cc:dd",
        "22:00 - 07:00", "٢٢:٠٠-07:00",
    ])
    func quietHoursThatAreNotTwoClockTimesAreRefused(_ text: String) {
        #expect(NotificationPolicy.QuietHours(text) == nil)
    }
}
