/// Every text a notification shows of its own, as its English original: the msgid its
/// translations are found by in po/*.po. `%1$s` and `%2$s` are the values put in, in that
/// order in English (a translation may put them in another).
enum Phrase: String, CaseIterable, Sendable {
    case newMessage = "New message"
    case newTransfer = "New transfer"
    case unknownContact = "Unknown contact"
    case sentYou = "Sent you %1$s"
    case youSent = "You sent %1$s"
    case sentYouWithComment = "Sent you %1$s: %2$s"
    case youSentWithComment = "You sent %1$s: %2$s"
    case yourMessage = "You: %1$s"
    case sentEmpty = "Sent an empty message"
    case youSentEmpty = "You sent an empty message"
    case reacted = "Reacted %1$s"
    case youReacted = "You reacted %1$s"
    case reactedUnshown = "Reacted"
    case youReactedUnshown = "You reacted"
    case removedReaction = "Removed a reaction"
    case youRemovedReaction = "You removed a reaction"
    case unreadable = "Sent a message this app cannot show"
    case youSentUnreadable = "You sent a message this app cannot show"
    case signal = "Sent a service signal"
    case youSentSignal = "You sent a service signal"
    case open = "Open"
    case muteOneHour = "Mute 1 hour"
    case bothCounts = "%1$s, %2$s"
    case quietSummary = "%1$s %2$s while quiet"
    case desktopName = "ADAMANT notifications"
    case desktopGenericName = "Messenger notifications"
    case desktopComment = "ADAMANT messages and transfers as desktop notifications, with no push service"
}

/// A text with a count in it, singular and plural as English has them: a language's catalog
/// holds as many forms as it needs (Russian three, Arabic six).
enum CountedPhrase: CaseIterable, Sendable {
    case newMessages
    case newTransfers
    case transfers
    case notifications
    case inChats

    /// The msgid and msgid_plural.
    var english: (one: String, other: String) {
        switch self {
        case .newMessages: ("%1$s new message", "%1$s new messages")
        case .newTransfers: ("%1$s new transfer", "%1$s new transfers")
        case .transfers: ("%1$s transfer", "%1$s transfers")
        case .notifications: ("%1$s notification", "%1$s notifications")
        case .inChats: ("in %1$s chat", "in %1$s chats")
        }
    }
}
