public import AdamantCLI
import AdamantCore
public import AdamantFetch

/// How a fetch is printed: the notification's title and body as two lines, or one JSON
/// object that always has something to show (`fallback` and `reason` on failure).
public enum FetchReport {
    /// Prints `result`: its title and body, or with `json` one object; a failure is said on
    /// standard error too.
    public static func print(_ result: FetchResult, json: Bool, _ context: Context) {
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
    public static func printFallback(reason: String, json: Bool, _ context: Context) {
        let notification = NotificationRenderer.fallback(
            type: nil, amount: 0, title: "ADAMANT", wording: Wording(environment: context.environment))
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

    /// The exit code of a fetch that ended with `failure`.
    public static func exitCode(for failure: FetchFailure?) -> ExitCode {
        switch failure {
        case nil: .success
        case .wrongAccount: .usage
        // Stopped before it was found: as for one not found, the generic text was shown.
        case .notFound, .noUsableNode, .cancelled: .unavailable
        case .unverifiable, .notOurs, .unreadable: .invalidData
        }
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
