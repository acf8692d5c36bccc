import AdamantCore
import AdamantNodes
import Testing

@testable import AdamantFetch

/// The delivery machine against what its executor can do in any order: the bubble's answer
/// comes from a task of its own, while the service is lost, connected again by another
/// account's reconnect, or a reconnect fails late. Each is handled quietly; only an answer for a
/// bubble the service does not have is impossible, logged, and left without effect.
@Suite struct NotificationDeliveryConcurrencyTests {
    typealias Tables = NotificationDeliveryTests
    static let alice = Tables.alice
    static let bob = Tables.bob
    static let lost = "warning: desktop: the bus is gone; connecting again at the next notification"
    static let kept = "warning: desktop: a notification could not be shown, kept until the service is back: gone"

    static func found(_ body: String, id: UInt64, from partner: Address = alice, title: String = "Alice")
        -> NotificationDelivery.Event
    {
        Tables.found(body, id: id, from: partner, title: title)
    }

    static func ignored(_ serial: Int, with: String = "none of ours is") -> String {
        "warning: desktop: an answer for notification #\(serial) came while \(with) with the service; ignored"
    }

    /// The service is lost while a bubble is with it: the bubble's call still answers, and it
    /// counts; the service is asked again once nothing of ours is with it.
    @Test func aBubbleWithTheServiceWhenItIsLostIsAnsweredAndTheServiceAskedAgain() {
        var delivery = Tables.desktop()
        Tables.run(
            &delivery,
            [
                (Self.found("one", id: 1), ["show 1: Alice: one", "notify #1 Alice: one"]),
                (.lost("the bus is gone"), [Self.lost]),
                (Self.found("two", id: 2, from: Self.bob, title: "Bob"), ["show 2: Bob: two"]),
                (.tick, []),
                (.notified(serial: 1, id: 40), ["connect"]),
                (
                    .connected(server: "dunst"),
                    ["info: desktop: the notification service is back: dunst", "notify #2 Bob: two"]
                ),
                (.notified(serial: 2, id: 41), []),
            ])
    }

    /// Lost, then its call fails: the bubble waits first again, recorded with what is behind it.
    @Test func aBubbleWithTheServiceWhenItIsLostMayFailAndWaitsFirst() {
        var delivery = Tables.desktop()
        Tables.run(
            &delivery,
            [
                (Self.found("one", id: 1), ["show 1: Alice: one", "notify #1 Alice: one"]),
                (.lost("the bus is gone"), [Self.lost]),
                (Self.found("two", id: 2, from: Self.bob, title: "Bob"), ["show 2: Bob: two"]),
                (.unreachable(serial: 1, "gone"), [Self.kept, "undelivered 1,2"]),
                (.tick, ["connect"]),
                (
                    .connected(server: "dunst"),
                    ["info: desktop: the notification service is back: dunst", "notify #1 Alice: one"]
                ),
                (.notified(serial: 1, id: 40), ["delivered 1", "notify #2 Bob: two"]),
                (.ending, []),
            ])
    }

    /// Another account's reconnect connects every account's delivery, one with a bubble out
    /// too: nothing is said, nothing more goes out, and the answer still counts.
    @Test func anotherAccountsReconnectWhileABubbleIsOutChangesNothingOfIt() {
        var delivery = Tables.desktop()
        Tables.run(
            &delivery,
            [
                (Self.found("one", id: 1), ["show 1: Alice: one", "notify #1 Alice: one"]),
                (.connected(server: "dunst"), []),
                (Self.found("two", id: 2), ["show 2: Alice: two"]),
                (.notified(serial: 1, id: 40), ["notify #2 Alice: 2 new messages / two replacing 40"]),
                (.notified(serial: 2, id: 40), []),
                (.invoked(id: 40, action: .click), ["open \(Self.alice)"]),
            ])
    }

    /// Two reconnects (the service lost while the first ran), the first failing after the
    /// second succeeded: the service is away again, what is out still answers, and what waits is
    /// recorded.
    @Test func aReconnectThatFailsLateLeavesTheServiceAwayAndTheBubbleOutAnswered() {
        var delivery = Tables.desktop()
        Tables.run(
            &delivery,
            [
                (.unreachable(serial: nil, "away"), []),
                (Self.found("one", id: 1), ["show 1: Alice: one", "connect"]),
                (.lost("the bus is gone"), [Self.lost]),
                (.tick, ["connect"]),
                (
                    .connected(server: "dunst"),
                    ["info: desktop: the notification service is back: dunst", "notify #1 Alice: one"]
                ),
                (.unreachable(serial: nil, "the first reconnect failed"), ["undelivered 1"]),
                (Self.found("two", id: 2, from: Self.bob, title: "Bob"), ["show 2: Bob: two"]),
                (.notified(serial: 1, id: 40), ["delivered 1", "connect"]),
            ])
    }

    /// Answers no executor sends: for a bubble never sent, sent already answered, or not the one
    /// with the service. Each is said and changes nothing: the service is not taken for away,
    /// and the bubble that is out still gets its own answer.
    @Test func anAnswerForABubbleTheServiceDoesNotHaveIsLoggedAndChangesNothing() {
        var delivery = Tables.desktop()
        delivery.stopsOnImpossible = false
        Tables.run(
            &delivery,
            [
                (.notified(serial: 1, id: 40), [Self.ignored(1)]),
                (.refused(serial: 1, "denied"), [Self.ignored(1)]),
                (.unreachable(serial: 1, "gone"), [Self.ignored(1)]),
                (Self.found("one", id: 1), ["show 1: Alice: one", "notify #1 Alice: one"]),
                (.notified(serial: 2, id: 41), [Self.ignored(2, with: "#1 is")]),
                (.refused(serial: 2, "denied"), [Self.ignored(2, with: "#1 is")]),
                (.unreachable(serial: 2, "gone"), [Self.ignored(2, with: "#1 is")]),
                (.invoked(id: 41, action: .click), []),
                (.notified(serial: 1, id: 40), []),
                (.notified(serial: 1, id: 40), [Self.ignored(1)]),
                (.invoked(id: 40, action: .click), ["open \(Self.alice)"]),
                (Self.found("two", id: 2), ["show 2: Alice: two", "notify #2 Alice: two replacing 40"]),
            ])
    }

    /// While the service is being connected, nothing of ours is with it: an answer then is one
    /// no executor sends, and the reconnect's own answer goes on as ever.
    @Test func anAnswerWhileConnectingIsLoggedAndTheReconnectGoesOn() {
        var delivery = Tables.desktop()
        delivery.stopsOnImpossible = false
        Tables.run(
            &delivery,
            [
                (.unreachable(serial: nil, "away"), []),
                (Self.found("one", id: 1), ["show 1: Alice: one", "connect"]),
                (.notified(serial: 1, id: 40), [Self.ignored(1)]),
                (.refused(serial: 1, "denied"), [Self.ignored(1)]),
                (.tick, []),
                (
                    .connected(server: "dunst"),
                    ["info: desktop: the notification service is back: dunst", "notify #1 Alice: one"]
                ),
                (.notified(serial: 1, id: 40), []),
            ])
    }
}
