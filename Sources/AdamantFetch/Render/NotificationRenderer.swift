// TEMPORARY placeholder until the renderer lands from f9-render; never committed.
public import AdamantCore
public enum NotificationRenderer {
    public static func render(_ content: MessageContent, title: String) -> RenderedNotification {
        RenderedNotification(kind: content.type == .transfer || content.amount > 0 ? .transfer : .message, title: title, body: content.plaintext ?? "")
    }
    public static func fallback(type: TransactionType?, amount: Int64, title: String) -> RenderedNotification {
        RenderedNotification(kind: .unknown, title: title, body: type == .transfer || amount > 0 ? "New transfer" : "New message")
    }
}
