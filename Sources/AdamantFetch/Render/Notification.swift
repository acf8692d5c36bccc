public import AdamantCore

/// What a notification is about, as `--json` names it.
public enum NotificationKind: String, Sendable, Hashable, Codable, CaseIterable {
    case message, transfer, cryptoTransfer, reaction, reply, file, signal, unknown
}

/// What a transaction says, once found, verified and (for chats) decrypted: the renderer's
/// whole input. No keys, no network.
public struct MessageContent: Sendable, Hashable {
    public var type: TransactionType
    /// `asset.chat.type` for chats, nil for anything else.
    public var chatType: ChatType?
    /// In 1e-8 ADM: a type 0 transfer, or the ADM a chat carries (a transfer with comment).
    public var amount: Int64
    /// The decrypted message; nil when there is none (type 0) or it could not be read.
    public var plaintext: String?
    /// False for a transaction this account sent (from another device).
    public var incoming: Bool

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
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var shown: Bool

    public init(kind: NotificationKind, title: String, body: String, shown: Bool = true) {
        self.kind = kind
        self.title = title
        self.body = body
        self.shown = shown
    }
}
