import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch

/// `--notify`: the desktop's notification service, connected at the start so that a
/// desktop that is not there is said at once (exit 69), never at the first message.
enum DesktopOutput {
    /// The PWA's route to a chat.
    static func chatURL(_ partner: Address) -> String { "https://msg.adamant.im/chats/\(partner)/" }

    /// A notifier when notifications go to the desktop (`--notify` or the file's
    /// `notify`), nil when they do not. `staying` is false for a process that exits right
    /// after showing: its bubbles offer no action, as nobody would hear the click.
    static func notifier(
        _ arguments: ParsedArguments, _ context: Context, staying: Bool, warn: @escaping @Sendable (String) -> Void
    ) async throws(CLIError) -> DesktopNotifier? {
        guard try DesktopOptions.notifySetting(arguments, context).value else { return nil }
        // Only a process that stays has --open: nobody hears a click on the others' bubbles.
        let open = staying ? try DesktopOptions.openSetting(arguments, context).value : DesktopOptions.defaultOpen
        var appearance = DesktopNotifier.Appearance()
        appearance.actions = staying
        appearance.icon = DesktopIcon.path(environment: context.environment) { SmallFile.exists(atPath: $0) } ?? ""
        var inherited = context.environment
        inherited["ADM_PASSPHRASE"] = nil
        let environment = inherited
        do {
            let notifier = try await DesktopNotifier.connect(environment: context.environment, appearance) { request in
                switch request {
                case .open(let chat): await Self.open(chat, command: open, environment: environment, warn: warn)
                }
            } log: { line in
                warn(line)
            }
            return notifier
        } catch {
            throw CLIError("--notify: \(error)", exitCode: .unavailable)
        }
    }

    /// Runs the open command for `chat`, as `--exec` runs its hook.
    static func open(_ chat: ChatBubbles.Chat, command: String, environment: [String: String], warn: @Sendable (String) -> Void) async {
        var environment = environment
        environment["ADM_CHAT_URL"] = chatURL(chat.partner)
        environment["ADM_PARTNER"] = chat.partner.description
        environment["ADM_ACCOUNT"] = chat.account.description
        let outcome = await ChildProcess.run("/bin/sh", ["-c", command], environment: environment, timeout: WatchCommand.hookTimeout)
        if !outcome.succeeded { warn("desktop: the open command for the chat with \(chat.partner) \(outcome)") }
    }
}
