public import AdamantCLI
public import AdamantFetch

/// The watch's standard output: one line per notification, "title: body" or `--json`'s
/// object, each line out of the progress line's way.
public struct NotificationLines: Sendable {
    let output: Output
    let progress: ProgressLine?
    let json: Bool
    /// With several accounts, each line starts with "[U…] ".
    let named: Bool

    /// Lines to `output`, out of `progress`'s way, as JSON objects or "title: body".
    public init(output: Output, progress: ProgressLine?, json: Bool, named: Bool) {
        (self.output, self.progress, self.json, self.named) = (output, progress, json, named)
    }

    /// Whether the whole line was written.
    public func print(_ notification: WatchNotification) -> Bool {
        var written = false
        let write = {
            let shown = notification.result.notification
            let body = shown.body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
            written =
                json
                ? output.printJSON(notification)
                : output.printShown((named ? "[\(notification.account)] " : "") + shown.title + ": " + body)
        }
        if let progress { progress.interrupt(write) } else { write() }
        return written
    }
}
