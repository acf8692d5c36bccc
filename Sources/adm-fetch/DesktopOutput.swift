import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch
import AdamantNodes

/// `--notify`: the desktop's notification service, connected at the start so that a
/// desktop that is not there is said at once (exit 69), never at the first message.
enum DesktopOutput {
    /// The desktop's notification service when notifications go there (`--notify` or the
    /// file's `notify`), nil when they do not.
    static func notifier(_ arguments: ParsedArguments, _ context: Context, wording: Wording) async throws(CLIError)
        -> DesktopNotifier?
    {
        guard try DesktopOptions.notifySetting(arguments, context).value else { return nil }
        var appearance = DesktopNotifier.Appearance()
        appearance.wording = wording
        appearance.icon = DesktopIcon.path(environment: context.environment) { SmallFile.exists(atPath: $0) } ?? ""
        do { return try await DesktopNotifier.connect(environment: context.environment, appearance) } catch {
            throw CLIError("--notify: \(error)", exitCode: .unavailable)
        }
    }
}

/// A one-shot command's log: its warnings, each a "warning: …" line on standard error.
struct Warnings: LogSink {
    let output: Output

    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        if level >= .warning { output.error("warning: " + message()) }
    }

    func logs(_ level: LogLevel) -> Bool { level >= .warning }
}
