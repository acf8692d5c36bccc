public import AdamantCore

/// Turns what a transaction says into the notification shown. Pure: no keys, network or files.
///
/// Everything the sender or the address book wrote is hostile: Markdown is stripped from text,
/// and the body and title are one line each (line breaks as "↵ "), with no control or format
/// characters, at most `bodyLimit` / `titleLimit` characters ending in "…" when cut.
///
/// | shape | kind | incoming body | outgoing body (sent from another device) |
/// |---|---|---|---|
/// | type 0 transfer; chat with amount > 0 (any chat type but 3, a reply too) | transfer | `Sent you 1.5 ADM` | `You sent 1.5 ADM` |
/// | … with a comment (the text, or a reply's text) | transfer | `Sent you 1.5 ADM: thanks` | `You sent 1.5 ADM: thanks` |
/// | crypto transfer (AIP-12), or a reply carrying one | cryptoTransfer | `Sent you 0.002 ETH: comment` | `You sent 0.002 ETH: comment` |
/// | text (chat type 0 or 1) | message | `text` | `You: text` |
/// | text reply (AIP-16) | reply | `text` | `You: text` |
/// | empty text or reply | message / reply | `Sent an empty message` | `You sent an empty message` |
/// | reaction (AIP-17) | reaction | `Reacted 👍` | `You reacted 👍` |
/// | removed reaction (empty `react_message`) | reaction | `Removed a reaction` | `You removed a reaction` |
/// | reaction that cleans to nothing | reaction | `Reacted` | `You reacted` |
/// | files (AIP-18), or a reply carrying them | file | `📸3 📄 comment` | `You: 📸3 📄 comment` |
/// | unknown rich shape with `text_fallback` | unknown | `fallback text` | `You: fallback text` |
/// | unknown rich shape without one, or not readable JSON | unknown | `Sent a message this app cannot show` | `You sent a message this app cannot show` |
/// | signal (chat type 3), `shown == false` | signal | `Sent a service signal` | `You sent a service signal` |
/// | `fallback`: not found, verified or read | transfer / message / unknown | `New transfer` / `New message` | (the same) |
/// | a title that cleans to nothing | — | title `Unknown contact` | (the same) |
///
/// An ADM amount on a chat wins over the rich shape (the chain moved that ADM; a crypto amount
/// is only what the sender wrote), and `adm_transaction` is never a crypto transfer, for the
/// same reason. A reaction shows at most `reactionLimit` characters.
///
/// The words are `wording`'s (the table is English); what the sender wrote is cleaned before
/// it is put into them, so the sentence itself is only capped, and a right-to-left language's
/// isolation marks stay.
public enum NotificationRenderer {
    /// The longest body, in characters, "…" included.
    public static let bodyLimit = NotificationText.bodyLimit
    /// The longest title, in characters, "…" included.
    public static let titleLimit = NotificationText.titleLimit
    /// The longest reaction shown, in characters.
    public static let reactionLimit = 8

    /// `title` is the partner's display name (from the address book) or address; it is hostile input too.
    public static func render(_ content: MessageContent, title: String, wording: Wording = .english)
        -> RenderedNotification
    {
        let title = cleanTitle(title, wording)
        let voice = Voice(incoming: content.incoming, wording: wording)
        func notification(_ kind: NotificationKind, _ body: String) -> RenderedNotification {
            RenderedNotification(kind: kind, title: title, body: NotificationText.capped(body, limit: bodyLimit))
        }
        let admAmount = content.amount > 0 ? ADMAmount(units: content.amount).description : nil

        switch content.type {
        case .transfer:
            guard let admAmount else { break }
            return notification(.transfer, voice.sent(admAmount, "ADM"))
        case .chat:
            guard let chatType = content.chatType else { break }
            switch (chatType, content.plaintext) {
            case (.signal, _):
                return RenderedNotification(kind: .signal, title: title, body: voice.signal, shown: false)
            case (_, nil):
                break
            case (.legacy, let plaintext?), (.message, let plaintext?):
                let text = cleanText(plaintext)
                if let admAmount { return notification(.transfer, voice.sent(admAmount, "ADM", comment: text)) }
                return notification(.message, voice.said(text))
            case (.rich, let plaintext?):
                let message = RichMessage(plaintext: plaintext)
                if let admAmount {
                    let comment = if case .textReply(let text) = message { cleanText(text) } else { "" }
                    return notification(.transfer, voice.sent(admAmount, "ADM", comment: comment))
                }
                let (kind, body) = describe(message, voice)
                return notification(kind, body)
            }
        default:
            break
        }
        return fallback(type: content.type, amount: content.amount, title: title, wording: wording)
    }

    /// The generic notification shown when the transaction could not be found, verified or read:
    /// "New message" / "New transfer" (a transfer when `type` is 0 or `amount > 0`), kind from the type.
    public static func fallback(type: TransactionType?, amount: Int64, title: String, wording: Wording = .english)
        -> RenderedNotification
    {
        let isTransfer = type == .transfer || amount > 0
        let kind: NotificationKind = isTransfer ? .transfer : type == .chat ? .message : .unknown
        return RenderedNotification(
            kind: kind, title: cleanTitle(title, wording),
            body: wording.text(isTransfer ? .newTransfer : .newMessage))
    }

    private static func describe(_ message: RichMessage, _ voice: Voice) -> (NotificationKind, String) {
        switch message {
        case .cryptoTransfer(let ticker, let amount, let comment):
            let (ticker, amount) = (cleanLine(ticker), cleanLine(amount))
            return (.cryptoTransfer, voice.sent(amount, ticker, comment: cleanText(comment)))
        case .textReply(let text):
            return (.reply, voice.said(cleanText(text)))
        case .reaction(let emoji):
            let shown = NotificationText.oneLine(emoji, limit: reactionLimit)
            return (.reaction, emoji.isEmpty ? voice.removedReaction : voice.reacted(shown))
        case .files(let photos, let documents, let comment):
            let icons = [("📸", photos), ("📄", documents)].filter { $0.1 > 0 }.map { $0.1 > 1 ? "\($0.0)\($0.1)" : $0.0 }
            let text = cleanText(comment)
            return (.file, voice.said((icons + (text.isEmpty ? [] : [text])).joined(separator: " ")))
        case .unknown(let textFallback):
            let text = textFallback.map(cleanText) ?? ""
            return (.unknown, text.isEmpty ? voice.unreadable : voice.said(text))
        }
    }

    /// Sender text as shown: Markdown stripped, then one clean line.
    private static func cleanText(_ text: String) -> String {
        cleanLine(Markdown.strip(text))
    }

    private static func cleanLine(_ text: String) -> String {
        NotificationText.oneLine(text, limit: bodyLimit)
    }

    private static func cleanTitle(_ title: String, _ wording: Wording) -> String {
        let line = NotificationText.oneLine(title, limit: titleLimit)
        return line.isEmpty ? wording.text(.unknownContact) : line
    }
}

/// The wording, by direction: the other party's doing, or this account's from another device.
private struct Voice {
    let incoming: Bool
    let wording: Wording

    func sent(_ amount: String, _ symbol: String, comment: String = "") -> String {
        let value = wording.number(amount) + " " + symbol
        if comment.isEmpty { return wording.text(incoming ? .sentYou : .youSent, value) }
        return wording.text(incoming ? .sentYouWithComment : .youSentWithComment, value, comment)
    }

    func said(_ text: String) -> String {
        if text.isEmpty { return wording.text(incoming ? .sentEmpty : .youSentEmpty) }
        return incoming ? text : wording.text(.yourMessage, text)
    }

    func reacted(_ emoji: String) -> String {
        if emoji.isEmpty { return wording.text(incoming ? .reactedUnshown : .youReactedUnshown) }
        return wording.text(incoming ? .reacted : .youReacted, emoji)
    }

    var removedReaction: String { wording.text(incoming ? .removedReaction : .youRemovedReaction) }
    var unreadable: String { wording.text(incoming ? .unreadable : .youSentUnreadable) }
    var signal: String { wording.text(incoming ? .signal : .youSentSignal) }
}
