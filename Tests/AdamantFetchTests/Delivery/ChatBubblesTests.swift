import AdamantCore
import Testing

@testable import AdamantFetch

@Suite struct ChatBubblesTests {
    static let account = try! Address("U5517006347330072401")
    static let alice = try! Address("U10629337621822775991")
    static let bob = try! Address("U8916295525136600565")
    let withAlice = ChatBubbles.Chat(account: account, partner: alice)
    static func text(_ body: String) -> NotificationPolicy.Presentation {
        .init(title: "Alice", body: body, showsText: true, urgency: .normal, silent: false)
    }
    let withBob = ChatBubbles.Chat(account: account, partner: bob)

    @Test func aSecondMessageReplacesTheChatsBubbleAndCounts() {
        var bubbles = ChatBubbles()
        let first = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 10, Self.text("1"))
        #expect(first.replacing == 0 && first.count == nil)
        bubbles.shown(withAlice, as: 7)
        let second = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 20, Self.text("2"))
        #expect(second.replacing == 7 && second.count == "2 new messages")
        let transfer = bubbles.arrived(in: withAlice, isTransfer: true, sentAt: 30, Self.text("3"))
        #expect(transfer.replacing == 7 && transfer.count == "2 new messages, 1 transfer")
    }

    @Test func eachChatHasItsOwnBubble() {
        var bubbles = ChatBubbles()
        _ = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 40, Self.text("4"))
        bubbles.shown(withAlice, as: 7)
        let other = bubbles.arrived(in: withBob, isTransfer: true, sentAt: 50, Self.text("5"))
        #expect(other.replacing == 0 && other.count == nil)
        bubbles.shown(withBob, as: 8)
        #expect(bubbles.chat(shownAs: 7) == withAlice && bubbles.chat(shownAs: 8) == withBob)
        // The same partner of another watched account is another chat.
        let elsewhere = ChatBubbles.Chat(account: Self.bob, partner: Self.alice)
        #expect(bubbles.arrived(in: elsewhere, isTransfer: false, sentAt: 60, Self.text("6")).replacing == 0)
    }

    @Test func dismissedOrActedOnStartsAgainButExpiredKeepsCounting() {
        var bubbles = ChatBubbles()
        _ = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 70, Self.text("7"))
        bubbles.shown(withAlice, as: 7)
        bubbles.closed(7, reason: 1)  // expired: not seen
        let afterExpiry = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 80, Self.text("8"))
        #expect(afterExpiry.replacing == 0 && afterExpiry.count == "2 new messages")
        bubbles.shown(withAlice, as: 9)
        bubbles.closed(9, reason: 2)  // dismissed by the user
        let afterDismissal = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 90, Self.text("9"))
        #expect(afterDismissal.replacing == 0 && afterDismissal.count == nil)
        bubbles.shown(withAlice, as: 10)
        _ = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 100, Self.text("10"))
        bubbles.seen(withAlice)
        // Acted on but left on screen: still the chat's, replaced, counting from one again.
        #expect(bubbles.chat(shownAs: 10) == withAlice)
        let afterAction = bubbles.arrived(in: withAlice, isTransfer: true, sentAt: 110, Self.text("11"))
        #expect(afterAction.replacing == 10 && afterAction.count == nil)
    }

    @Test func aCloseOfABubbleNobodyKnowsChangesNothing() {
        var bubbles = ChatBubbles()
        _ = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 120, Self.text("12"))
        bubbles.shown(withAlice, as: 7)
        let before = bubbles
        bubbles.closed(99, reason: 2)
        #expect(bubbles == before)
    }

    @Test func theBubbleShowsTheNewestSentNotTheLastToArrive() {
        var bubbles = ChatBubbles()
        _ = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 100, Self.text("first"))
        bubbles.shown(withAlice, as: 7)
        let late = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 300, Self.text("third"))
        #expect(late.shows.body == "third")
        let early = bubbles.arrived(in: withAlice, isTransfer: false, sentAt: 200, Self.text("second, arriving last"))
        #expect(early.shows.body == "third" && early.count == "3 new messages" && early.replacing == 7)
    }

    @Test(arguments: [
        (0, 3, "3 new transfers"), (1, 1, "1 new message, 1 transfer"), (5, 0, "5 new messages"),
        (2, 4, "2 new messages, 4 transfers"),
    ])
    func theCountSaysWhatCame(messages: Int, transfers: Int, line: String) {
        #expect(ChatBubbles.countLine(.init(messages: messages, transfers: transfers), .english) == line)
    }
}
