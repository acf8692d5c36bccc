public import AdamantCore

/// What a notification is about, as `--json` names it.
public enum NotificationKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A message, a transfer (ADM, with or without a comment), a crypto transfer, a reaction, a
    /// reply, files, a signal (never shown), or a rich message this app cannot show; the table of
    /// `NotificationRenderer` says which shape is which.
    case message, transfer, cryptoTransfer, reaction, reply, file, signal, unknown
}

/// What a transaction says, once found, verified and (for chats) decrypted: the renderer's
/// whole input. No keys, no network.
public struct MessageContent: Sendable, Hashable {
    /// The transaction's type: a transfer (0) or a chat (8).
    public var type: TransactionType
    /// `asset.chat.type` for chats, nil for anything else.
    public var chatType: ChatType?
    /// In 1e-8 ADM: a type 0 transfer, or the ADM a chat carries (a transfer with comment).
    public var amount: Int64
    /// The decrypted message; nil when there is none (type 0) or it could not be read.
    public var plaintext: String?
    /// False for a transaction this account sent (from another device).
    public var incoming: Bool

    /// What a transaction says, field by field.
    public init(type: TransactionType, chatType: ChatType?, amount: Int64, plaintext: String?, incoming: Bool) {
        self.type = type
        self.chatType = chatType
        self.amount = amount
        self.plaintext = plaintext
        self.incoming = incoming
    }
}

/// A notification as shown: one title, one body, and whether to show it at all (signals are
/// control traffic and never are).
public struct RenderedNotification: Sendable, Hashable {
    /// What it is about.
    public var kind: NotificationKind
    /// One line: the partner's name, or address.
    public var title: String
    /// One line: the message, or what happened ("Sent you 1.5 ADM").
    public var body: String
    /// Whether to show it: false for signals.
    public var shown: Bool

    /// A notification as given: nothing is cleaned or cut here (the renderer does that).
    public init(kind: NotificationKind, title: String, body: String, shown: Bool = true) {
        self.kind = kind
        self.title = title
        self.body = body
        self.shown = shown
    }
}
