public import AdamantCore

/// The bubble each chat has on the desktop, pure: a second message or transfer from the same
/// partner replaces the chat's bubble and counts ("2 new messages"), until the user closes
/// it or acts on it. A bubble that only expired keeps its count, so the next one says how
/// many came since the user last looked. It shows the newest by the time it was sent, not
/// the last to arrive: two nodes' sockets may hand two messages over in either order.
public struct ChatBubbles: Sendable, Hashable {
    /// A chat: one partner of one account.
    public struct Chat: Sendable, Hashable {
        /// The watched account.
        public let account: Address
        /// The other party.
        public let partner: Address

        /// The chat of `account` with `partner`.
        public init(account: Address, partner: Address) {
            self.account = account
            self.partner = partner
        }

        /// The chat `notification` belongs to: its thread, or the account's own for one with
        /// none (a fallback).
        public init(of notification: WatchNotification) {
            self.init(account: notification.account, partner: notification.result.thread ?? notification.account)
        }
    }

    /// What one chat's bubble says so far.
    struct Unseen: Sendable, Hashable {
        var messages = 0
        var transfers = 0
        /// The server's id while the bubble is on screen.
        var shownAs: UInt32?
        /// The newest one counted.
        var newest: Newest?
    }

    /// When a notification was sent (any one clock) and what it says.
    struct Newest: Sendable, Hashable {
        let sentAt: Int64
        let presentation: NotificationPolicy.Presentation
    }

    private var unseen: [Chat: Unseen] = [:]
    /// The words of the line that counts.
    private let wording: Wording

    /// No bubbles; the line that counts them in `wording`.
    public init(wording: Wording = .english) { self.wording = wording }

    /// Counts one more notification in `chat`, sent at `sentAt` (any clock, the same for all) and shown
    /// as `presentation`: the bubble it replaces (0 for a new one), the line that counts them
    /// (nil for the first), and what the bubble shows: the newest's presentation.
    public mutating func arrived(
        in chat: Chat, isTransfer: Bool, sentAt: Int64, _ presentation: NotificationPolicy.Presentation
    ) -> (replacing: UInt32, count: String?, shows: NotificationPolicy.Presentation) {
        var state = unseen[chat] ?? Unseen()
        if isTransfer { state.transfers += 1 } else { state.messages += 1 }
        if sentAt >= state.newest?.sentAt ?? .min { state.newest = Newest(sentAt: sentAt, presentation: presentation) }
        unseen[chat] = state
        return (state.shownAs ?? 0, Self.countLine(state, wording), state.newest?.presentation ?? presentation)
    }

    /// The server showed the chat's bubble as `id`.
    public mutating func shown(_ chat: Chat, as id: UInt32) {
        unseen[chat]?.shownAs = id
    }

    /// The chat whose bubble the server knows as `id`.
    public func chat(shownAs id: UInt32) -> Chat? {
        unseen.first { $0.value.shownAs == id }?.key
    }

    /// The bubble `id` is gone for `reason` (the specification's 1 expired, 2 dismissed, 3
    /// closed by a call, 4 other): its chat starts counting again, unless it only expired.
    public mutating func closed(_ id: UInt32, reason: UInt32) {
        guard let chat = chat(shownAs: id) else { return }
        if reason == 1 { unseen[chat]?.shownAs = nil } else { unseen[chat] = nil }
    }

    /// The user acted on the chat's bubble: what it counted is seen. A bubble the server
    /// leaves on screen is still the chat's, replaced by the next one.
    public mutating func seen(_ chat: Chat) {
        guard let shown = unseen[chat]?.shownAs else {
            unseen[chat] = nil
            return
        }
        unseen[chat] = Unseen(shownAs: shown, newest: nil)
    }

    /// "2 new messages", "3 new messages, 1 transfer"; nil for a single one.
    static func countLine(_ state: Unseen, _ wording: Wording) -> String? {
        guard state.messages + state.transfers > 1 else { return nil }
        switch (state.messages, state.transfers) {
        case (let messages, 0): return wording.counted(.newMessages, messages)
        case (0, let transfers): return wording.counted(.newTransfers, transfers)
        case (let messages, let transfers):
            return wording.text(
                .bothCounts, wording.counted(.newMessages, messages), wording.counted(.transfers, transfers))
        }
    }
}
