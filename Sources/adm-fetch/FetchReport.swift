import AdamantCLI
import AdamantCore
import AdamantFetch

/// How a fetch is printed: the notification's title and body as two lines, or one JSON
/// object that always has something to show (`fallback` and `reason` on failure).
enum FetchReport {
    static func print(_ result: FetchResult, json: Bool, _ context: Context) {
        if json {
            context.output.printJSON(Object(result))
            return
        }
        context.output.print(result.notification.title)
        context.output.print(result.notification.body)
        if let failure = result.failure { context.output.error("Error: \(failure)") }
    }

    /// The generic text for a push that could not even be read (no id to name); the error
    /// itself is the caller's to report.
    static func printFallback(reason: String, json: Bool, _ context: Context) {
        let notification = NotificationRenderer.fallback(type: nil, amount: 0, title: "ADAMANT")
        if json {
            context.output.printJSON(
                Unread(
                    kind: notification.kind.rawValue, title: notification.title, body: notification.body, reason: reason
                ))
            return
        }
        context.output.print(notification.title)
        context.output.print(notification.body)
    }

    /// `--json` for a push that could not be read: the generic text and why.
    struct Unread: Encodable {
        let kind: String
        let title: String
        let body: String
        var shown = false
        var fallback = true
        let reason: String
    }

    /// `watch --json`: the fetch's object, and how the watch found the transaction.
    struct Watched: Encodable {
        let object: Object
        let via: String
        let confirmed: Bool
        let account: String

        init(_ notification: WatchNotification) {
            object = Object(notification.result)
            via = notification.via.rawValue
            confirmed = notification.confirmed
            account = notification.account.description
        }

        private enum Keys: String, CodingKey { case via, confirmed, account }

        func encode(to encoder: any Encoder) throws {
            try object.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(via, forKey: .via)
            try container.encode(confirmed, forKey: .confirmed)
            try container.encode(account, forKey: .account)
        }
    }

    /// The `--json` object; transaction fields are absent when there is no verified one.
    struct Object: Encodable {
        let id: String
        let type: Int?
        let chatType: Int?
        let senderId: String?
        let recipientId: String?
        let amount: Int64?
        let timestamp: Int32?
        let height: Int64?
        let confirmations: Int64?
        let verified: Bool
        let kind: String
        let title: String
        let body: String
        let shown: Bool
        let thread: String?
        let text: String?
        let duplicate: Bool
        let fallback: Bool
        let reason: String?

        init(_ result: FetchResult) {
            let transaction = result.transaction
            id = result.id.description
            type = transaction?.type.rawValue
            chatType = transaction?.chat?.type.rawValue
            senderId = transaction.map { $0.senderPublicKey.address.description }
            recipientId = transaction?.recipientId?.description
            amount = transaction?.amount
            timestamp = transaction?.timestamp
            height = transaction?.height
            confirmations = transaction?.confirmations
            verified = transaction != nil
            kind = result.notification.kind.rawValue
            title = result.notification.title
            body = result.notification.body
            shown = result.notification.shown && result.failure == nil
            thread = result.thread?.description
            text = result.text
            duplicate = result.duplicate
            fallback = result.failure != nil
            reason = result.failure?.description
        }
    }
}
