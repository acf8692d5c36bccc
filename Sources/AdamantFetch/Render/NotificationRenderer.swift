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
public enum NotificationRenderer {
    /// The longest body, in characters, "…" included.
    public static let bodyLimit = NotificationText.bodyLimit
    /// The longest title, in characters, "…" included.
    public static let titleLimit = NotificationText.titleLimit
    /// The longest reaction shown, in characters.
    public static let reactionLimit = 8

    /// `title` is the partner's display name (from the address book) or address; it is hostile input too.
    public static func render(_ content: MessageContent, title: String) -> RenderedNotification {
        let title = cleanTitle(title)
        let voice = Voice(incoming: content.incoming)
        func notification(_ kind: NotificationKind, _ body: String) -> RenderedNotification {
            RenderedNotification(kind: kind, title: title, body: NotificationText.oneLine(body, limit: bodyLimit))
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
        return fallback(type: content.type, amount: content.amount, title: title)
    }

    /// The generic notification shown when the transaction could not be found, verified or read:
    /// "New message" / "New transfer" (a transfer when `type` is 0 or `amount > 0`), kind from the type.
    public static func fallback(type: TransactionType?, amount: Int64, title: String) -> RenderedNotification {
        let isTransfer = type == .transfer || amount > 0
        let kind: NotificationKind = isTransfer ? .transfer : type == .chat ? .message : .unknown
        return RenderedNotification(
            kind: kind, title: cleanTitle(title), body: isTransfer ? "New transfer" : "New message")
    }

    private static func describe(_ message: RichMessage, _ voice: Voice) -> (NotificationKind, String) {
        switch message {
        case .cryptoTransfer(let ticker, let amount, let comment):
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
        NotificationText.oneLine(Markdown.strip(text), limit: bodyLimit)
    }

    private static func cleanTitle(_ title: String) -> String {
        let line = NotificationText.oneLine(title, limit: titleLimit)
        return line.isEmpty ? "Unknown contact" : line
    }
}

/// The wording, by direction: the other party's doing, or this account's from another device.
private struct Voice {
    let incoming: Bool

    func sent(_ amount: String, _ symbol: String, comment: String = "") -> String {
        let transfer = incoming ? "Sent you \(amount) \(symbol)" : "You sent \(amount) \(symbol)"
        return comment.isEmpty ? transfer : "\(transfer): \(comment)"
    }

    func said(_ text: String) -> String {
        if text.isEmpty { return incoming ? "Sent an empty message" : "You sent an empty message" }
        return incoming ? text : "You: \(text)"
    }

    func reacted(_ emoji: String) -> String {
        let verb = incoming ? "Reacted" : "You reacted"
        return emoji.isEmpty ? verb : "\(verb) \(emoji)"
    }

    var removedReaction: String { incoming ? "Removed a reaction" : "You removed a reaction" }
    var unreadable: String {
        incoming ? "Sent a message this app cannot show" : "You sent a message this app cannot show"
    }
    var signal: String { incoming ? "Sent a service signal" : "You sent a service signal" }
}
