import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch
import AdamantNodes

/// `--notify`: the desktop's notification service, connected at the start so that a
/// desktop that is not there is said at once (exit 69), never at the first message.
enum DesktopOutput {
    /// The PWA's route to a chat.
    static func chatURL(_ partner: Address) -> String { "https://msg.adamant.im/chats/\(partner)/" }

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

    /// What a click on a bubble does: `--open` (or the file's `open`) for the chat.
    static func opener(_ arguments: ParsedArguments, _ context: Context, log: any LogSink) throws(CLIError)
        -> @Sendable (ChatBubbles.Chat) -> Void
    {
        let command = try DesktopOptions.openSetting(arguments, context).value
        let environment = context.environment  // which holds no passphrase
        return { chat in open(chat, command: command, environment: environment, log: log) }
    }

    /// Starts the open command for `chat` as `--exec` starts its hook, but neither waits for
    /// it nor stops it (the browser it opens is the user's now), and with its output on
    /// standard error, off the notifications' lines.
    static func open(_ chat: ChatBubbles.Chat, command: String, environment: [String: String], log: any LogSink) {
        var environment = environment
        environment["ADM_CHAT_URL"] = chatURL(chat.partner)
        environment["ADM_PARTNER"] = chat.partner.description
        environment["ADM_ACCOUNT"] = chat.account.description
        let failure = ChildProcess.launch("/bin/sh", ["-c", command], environment: environment) { outcome in
            if !outcome.succeeded {
                log.log(.warning, "desktop: the open command for the chat with \(chat.partner) \(outcome)")
            }
        }
        if let failure { log.log(.warning, "desktop: the open command could not start: \(failure)") }
    }
}

/// A one-shot command's log: its warnings, each a "warning: …" line on standard error.
struct Warnings: LogSink {
    let output: Output

    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        if level >= .warning { output.error("warning: " + message()) }
    }
}
