import AdamantCLI
import AdamantCore
import AdamantFetch

/// How a fetch is printed: the notification's title and body as two lines, or one JSON
/// object that always has something to show (`fallback` and `reason` on failure).
enum FetchReport {
    static func print(_ result: FetchResult, json: Bool, _ context: Context) {
        if json {
            context.output.printJSON(result)
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
}
