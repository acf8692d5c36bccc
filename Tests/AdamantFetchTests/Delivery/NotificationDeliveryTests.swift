import AdamantCore
import AdamantNodes
import Testing

@testable import AdamantFetch

/// The delivery machine as tables: events in, at a moment, and the actions each gives, each
/// written as a line (`show`, `notify`, `connect`, `record`, `open`; logs as their level).
@Suite struct NotificationDeliveryTests {
    static let account = try! Address("U5517006347330072401")
    static let alice = try! Address("U10629337621822775991")
    static let bob = try! Address("U8916295525136600565")
    /// Noon, and 23:00 (inside the quiet hours 22:00-07:00).
    static let noon = NotificationDelivery.Moment(unixMillis: 1_800_000_000_000, minuteOfDay: 12 * 60)
    static let night = NotificationDelivery.Moment(unixMillis: 1_800_000_000_000, minuteOfDay: 23 * 60)

    static func found(
        _ body: String, id: UInt64, from partner: Address = alice, title: String = "Alice",
        kind: NotificationKind = .message
    ) -> NotificationDelivery.Event {
        .found(notification(body, id: id, from: partner, title: title, kind: kind))
    }

    static func notification(
        _ body: String, id: UInt64, from partner: Address = alice, title: String = "Alice",
        kind: NotificationKind = .message
    ) -> WatchNotification {
        let result = FetchResult(
            id: TransactionID(number: id), transaction: nil,
            notification: RenderedNotification(kind: kind, title: title, body: body), text: body, thread: partner)
        return WatchNotification(result: result, via: .socket, account: account)
    }

    static func line(_ action: NotificationDelivery.Action) -> String {
        switch action {
        case .show(let notification):
            let shown = notification.result.notification
            return "show \(notification.result.id): \(shown.title): \(shown.body)"
                + (notification.result.text == nil ? " (no text)" : "")
        case .notify(let bubble):
            let shown = bubble.presentation
            return "notify #\(bubble.serial) \(shown.title): \(bubble.count.map { $0 + " / " } ?? "")\(shown.body)"
                + (bubble.replacing == 0 ? "" : " replacing \(bubble.replacing)")
                + (bubble.actions ? "" : " without actions") + (shown.silent ? " silent" : "")
                + (shown.urgency == .low ? " low" : "")
        case .connect: return "connect"
        case .record(.undelivered(let ids)): return "undelivered \(ids.map(\.description).joined(separator: ","))"
        case .record(.delivered(let ids)): return "delivered \(ids.map(\.description).joined(separator: ","))"
        case .record(.muted(let chat, let until)): return "mute \(chat.partner) until \(until)"
        case .open(let chat): return "open \(chat.partner)"
        case .log(let level, let message): return "\(level == .warning ? "warning" : "info"): \(message)"
        }
    }

    /// Runs `table` on `delivery`: each event's actions, as lines, must be the expected ones.
    static func run(
        _ delivery: inout NotificationDelivery, _ table: [(NotificationDelivery.Event, [String])],
        at moment: NotificationDelivery.Moment = noon, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (index, (event, expected)) in table.enumerated() {
            let lines = delivery.handle(event, at: moment).map(line)
            #expect(lines == expected, "row \(index): \(event)", sourceLocation: sourceLocation)
        }
    }

    static func desktop(_ policy: NotificationPolicy = NotificationPolicy(), stays: Bool = true) -> NotificationDelivery
    {
        NotificationDelivery(.init(policy: policy, desktop: true, stays: stays))
    }

    @Test func withNoDesktopEveryNotificationIsShownAndNothingElse() {
        var delivery = NotificationDelivery(.init(desktop: false, stays: true))
        Self.run(
            &delivery,
            [
                (Self.found("hi", id: 1), ["show 1: Alice: hi"]),
                (.tick, []),
                (.ending, []),
            ])
    }

    /// With account labels (a watch of several accounts), a bubble's title names its account
    /// after the partner; the line printed does not change, and an account with no label gets
    /// none.
    @Test func aBubbleOfOneOfSeveralAccountsNamesItsAccount() {
        var configuration = NotificationDelivery.Configuration(desktop: true, stays: true)
        configuration.accountLabels = [Self.account: "work"]
        var delivery = NotificationDelivery(configuration)
        Self.run(
            &delivery,
            [(Self.found("hi", id: 1), ["show 1: Alice: hi", "notify #1 Alice · work: hi"])])
        configuration.accountLabels = [Self.bob: "home"]
        delivery = NotificationDelivery(configuration)
        Self.run(&delivery, [(Self.found("hi", id: 1), ["show 1: Alice: hi", "notify #1 Alice: hi"])])
    }

    @Test func aChatsMessagesAreOneBubbleThatCountsThemAndShowsTheNewest() {
        var delivery = Self.desktop()
        Self.run(
            &delivery,
            [
                (Self.found("first", id: 1), ["show 1: Alice: first", "notify #1 Alice: first"]),
                // One bubble with the service at a time: the second waits for the first's answer.
                (Self.found("second", id: 2), ["show 2: Alice: second"]),
                (Self.found("third", id: 3), ["show 3: Alice: third"]),
                (.notified(serial: 1, id: 40), ["notify #2 Alice: 2 new messages / second replacing 40"]),
                (.notified(serial: 2, id: 40), ["notify #3 Alice: 3 new messages / third replacing 40"]),
                (.notified(serial: 3, id: 40), []),
                (
                    Self.found("Sent you 2 ADM", id: 4, from: Self.bob, title: "Bob", kind: .transfer),
                    ["show 4: Bob: Sent you 2 ADM", "notify #4 Bob: Sent you 2 ADM"]
                ),
            ])
    }

    @Test func aClosedBubbleStartsItsChatAfreshAndAnExpiredOneKeepsCounting() {
        var delivery = Self.desktop()
        Self.run(
            &delivery,
            [
                (Self.found("first", id: 1), ["show 1: Alice: first", "notify #1 Alice: first"]),
                (.notified(serial: 1, id: 40), []),
                (.closed(id: 40, reason: 1), []),  // expired
                (Self.found("second", id: 2), ["show 2: Alice: second", "notify #2 Alice: 2 new messages / second"]),
                (.notified(serial: 2, id: 41), []),
                (.closed(id: 41, reason: 2), []),  // dismissed
                (Self.found("third", id: 3), ["show 3: Alice: third", "notify #3 Alice: third"]),
            ])
    }

    @Test func aClickOpensTheChatAndMuteMutesItForAnHourOnly() {
        var delivery = Self.desktop()
        let until = Self.noon.unixMillis + NotificationDelivery.muteSpan
        Self.run(
            &delivery,
            [
                (Self.found("hello", id: 1), ["show 1: Alice: hello", "notify #1 Alice: hello"]),
                (.notified(serial: 1, id: 40), []),
                (.invoked(id: 40, action: .click), ["open \(Self.alice)"]),
                (.invoked(id: 99, action: .click), []),  // another account's bubble
                (
                    .invoked(id: 40, action: .mute),
                    [
                        "mute \(Self.alice) until \(until)",
                        "info: watch: \(Self.alice) muted until \(UTCTime.text(unixMillis: until))",
                    ]
                ),
                (Self.found("again", id: 2), ["info: watch: not shown: muted, or a kind not asked for"]),
                (Self.found("bob", id: 3, from: Self.bob, title: "Bob"), ["show 3: Bob: bob", "notify #2 Bob: bob"]),
            ])
        let later = NotificationDelivery.Moment(unixMillis: until, minuteOfDay: 13 * 60)
        Self.run(&delivery, [(Self.found("an hour on", id: 4), ["show 4: Alice: an hour on"])], at: later)
    }

    /// The service shows a bubble as it takes it, so a click or a close can be read before the
    /// answer that names the bubble (a loaded machine): it is acted on once the answer comes.
    /// One for a bubble that never turns out to be ours is let go with the answer.
    @Test func aClickReadBeforeTheAnswerThatNamesTheBubbleIsActedOnWhenItComes() {
        var delivery = Self.desktop()
        Self.run(
            &delivery,
            [
                (Self.found("hello", id: 1), ["show 1: Alice: hello", "notify #1 Alice: hello"]),
                (.invoked(id: 40, action: .click), []),
                (.invoked(id: 99, action: .click), []),  // another program's bubble
                (.notified(serial: 1, id: 40), ["open \(Self.alice)"]),
                (.invoked(id: 99, action: .click), []),
                (Self.found("bob", id: 2, from: Self.bob, title: "Bob"), ["show 2: Bob: bob", "notify #2 Bob: bob"]),
                (.closed(id: 41, reason: 2), []),  // dismissed before the answer
                (.notified(serial: 2, id: 41), []),
                // Bob's chat starts afresh: its bubble was closed, not merely unanswered.
                (
                    Self.found("bob again", id: 3, from: Self.bob, title: "Bob"),
                    ["show 3: Bob: bob again", "notify #3 Bob: bob again"]
                ),
            ])
    }

    @Test func quietHoursHoldBubblesForOneSummaryButNotTheLines() {
        var policy = NotificationPolicy()
        policy.quiet = NotificationPolicy.QuietHours("22:00-07:00")
        policy.quietMode = .hold
        var delivery = Self.desktop(policy)
        let held = "info: desktop: held for the summary when the quiet hours end"
        Self.run(
            &delivery,
            [
                (Self.found("one", id: 1), ["show 1: Alice: one", "undelivered 1", held]),
                (Self.found("two", id: 2), ["show 2: Alice: two", "undelivered 2", held]),
                (Self.found("three", id: 3, from: Self.bob), ["show 3: Alice: three", "undelivered 3", held]),
                (.tick, []),
            ], at: Self.night)
        Self.run(
            &delivery,
            [
                (.tick, ["notify #1 ADAMANT: 3 notifications in 2 chats while quiet without actions"]),
                (.tick, []),
                (.notified(serial: 1, id: 50), ["delivered 1,2,3"]),
                (.tick, []),
            ])
    }

    @Test func aProcessThatExitsShowsAHeldOneAtOnceQuietly() {
        var policy = NotificationPolicy()
        policy.quiet = NotificationPolicy.QuietHours("22:00-07:00")
        policy.quietMode = .hold
        var delivery = Self.desktop(policy, stays: false)
        Self.run(
            &delivery,
            [(Self.found("one", id: 1), ["show 1: Alice: one", "notify #1 Alice: one without actions silent low"])],
            at: Self.night)
    }

    /// A push's one bubble: without actions (the process is gone when it is clicked), held ones
    /// shown quietly, and none for a push seen before, which had its bubble then.
    @Test func aPushHasOneBubbleUnlessSeenBefore() {
        var policy = NotificationPolicy()
        policy.quiet = NotificationPolicy.QuietHours("22:00-07:00")
        policy.quietMode = .hold
        let pushed = Self.notification("one", id: 1)
        let bubbles = NotificationDelivery.bubbles(ofPushed: pushed, policy: policy, at: Self.night)
        #expect(bubbles.map { Self.line(.notify($0)) } == ["notify #1 Alice: one without actions silent low"])
        var again = pushed
        again.result.duplicate = true
        #expect(NotificationDelivery.bubbles(ofPushed: again, policy: policy, at: Self.night).isEmpty)
    }

    @Test func previewSenderAndNoneKeepTheTextOffEveryOutput() {
        var policy = NotificationPolicy()
        policy.preview = .none
        var delivery = Self.desktop(policy)
        Self.run(
            &delivery,
            [
                (
                    Self.found("my PIN is 4321", id: 1),
                    ["show 1: ADAMANT: New message (no text)", "notify #1 ADAMANT: New message"]
                )
            ])
    }

    @Test func whatTheServiceMissedWaitsRecordedAndGoesOutWhenItIsBack() {
        var delivery = Self.desktop()
        let kept = "warning: desktop: a notification could not be shown, kept until the service is back: gone"
        Self.run(
            &delivery,
            [
                (Self.found("one", id: 1), ["show 1: Alice: one", "notify #1 Alice: one"]),
                (.unreachable(serial: 1, "gone"), [kept, "undelivered 1"]),
                // Asked again at the next notification.
                (Self.found("two", id: 2, from: Self.bob, title: "Bob"), ["show 2: Bob: two", "connect"]),
                (.unreachable(serial: nil, "still gone"), ["undelivered 2"]),
                (.tick, ["connect"]),
                (
                    .connected(server: "dunst 1.9.0"),
                    ["info: desktop: the notification service is back: dunst 1.9.0", "notify #1 Alice: one"]
                ),
                (.notified(serial: 1, id: 7), ["delivered 1", "notify #2 Bob: two"]),
                (.notified(serial: 2, id: 8), ["delivered 2"]),
                (.ending, []),
            ])
    }

    @Test func aServiceLostIsSaidAndAskedAgainAtTheNextNotification() {
        var delivery = Self.desktop()
        Self.run(
            &delivery,
            [
                (
                    .lost("the bus is gone"),
                    ["warning: desktop: the bus is gone; connecting again at the next notification"]
                ),
                (.tick, []),
                (Self.found("one", id: 1), ["show 1: Alice: one", "connect"]),
                (
                    .connected(server: "dunst"),
                    ["info: desktop: the notification service is back: dunst", "notify #1 Alice: one"]
                ),
            ])
    }

    @Test func aRefusedBubbleIsAskedAgainThenGivenUpAndHoldsUpNoOther() {
        var delivery = Self.desktop()
        func refused(_ count: Int) -> String {
            "warning: desktop: the notification service refused a notification (\(count) of 3 times): denied"
        }
        Self.run(
            &delivery,
            [
                (Self.found("odd", id: 1), ["show 1: Alice: odd", "notify #1 Alice: odd"]),
                (.refused(serial: 1, "denied"), [refused(1), "undelivered 1"]),
                (
                    Self.found("next", id: 2, from: Self.bob, title: "Bob"),
                    ["show 2: Bob: next", "notify #1 Alice: odd"]
                ),
                // What waits behind a refused one is recorded, as for a service away.
                (.refused(serial: 1, "denied"), [refused(2), "undelivered 2"]),
                (.tick, ["notify #1 Alice: odd"]),
                (
                    .refused(serial: 1, "denied"),
                    [
                        "warning: desktop: the notification service refused a notification 3 times, given up and recorded as not delivered: denied",
                        "notify #2 Bob: next",
                    ]
                ),
                (.notified(serial: 2, id: 9), ["delivered 2"]),
            ])
    }

    @Test func atMostAHundredWaitAndTheOldestGoToTheRecord() {
        var delivery = Self.desktop()
        _ = delivery.handle(.unreachable(serial: nil, "away"), at: Self.noon)
        _ = delivery.handle(Self.found("0", id: 1000), at: Self.noon)  // asks to connect
        var recorded: [String] = []
        for id in 1...NotificationDelivery.maximumWaiting {
            recorded += delivery.handle(Self.found("\(id)", id: UInt64(id)), at: Self.noon).map(Self.line).filter {
                $0.hasPrefix("undelivered")
            }
        }
        #expect(recorded == ["undelivered 1000"])
        #expect(delivery.waiting.count == NotificationDelivery.maximumWaiting)
        Self.run(&delivery, [(.ending, ["undelivered " + (1...100).map(String.init).joined(separator: ",")])])
    }

    @Test func whatAnEarlierProcessMissedIsShownHeldOrLetGo() {
        var policy = NotificationPolicy()
        policy.muted[Self.bob] = .some(nil)
        var delivery = Self.desktop(policy)
        var failed = Self.notification("?", id: 3)
        failed.result.failure = .notFound(nil)
        Self.run(
            &delivery,
            [
                (.missed(Self.notification("before", id: 1)), ["notify #1 Alice: before"]),
                (.missed(Self.notification("muted", id: 2, from: Self.bob)), ["delivered 2"]),
                (.missed(failed), ["delivered 3"]),
                (.notified(serial: 1, id: 5), ["delivered 1"]),
            ])
    }
}
