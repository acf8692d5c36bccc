public import AdamantCLI
public import AdamantCore
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
        context.output.printShown(result.notification.title)
        context.output.printShown(result.notification.body)
        if let failure = result.failure { context.output.error("Error: \(failure)") }
    }

    /// The generic text for a push that could not be fetched at all (unread, or no passphrase
    /// for it): "New transfer" where its `carried` transaction says it is one. The error itself
    /// is the caller's to report.
    public static func printFallback(reason: String, json: Bool, carried: Transaction? = nil, _ context: Context) {
        let notification = NotificationRenderer.fallback(
            type: carried?.type, amount: carried?.amount ?? 0, title: "ADAMANT",
            wording: Wording(environment: context.environment))
        if json {
            context.output.printJSON(
                Unread(
                    kind: notification.kind.rawValue, title: notification.title, body: notification.body, reason: reason
                ))
            return
        }
        context.output.printShown(notification.title)
        context.output.printShown(notification.body)
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
