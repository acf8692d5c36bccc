import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch
import AdamantNodes
import Synchronization

/// `--notify`: the desktop's notification service, connected at the start so that a
/// desktop that is not there is said at once (exit 69), never at the first message.
enum DesktopOutput {
    /// The PWA's route to a chat.
    static func chatURL(_ partner: Address) -> String { "https://msg.adamant.im/chats/\(partner)/" }

    /// A notifier when notifications go to the desktop (`--notify` or the file's
    /// `notify`), nil when they do not. `staying` is false for a process that exits right
    /// after showing: its bubbles offer no action, as nobody would hear the click.
    static func notifier(
        _ arguments: ParsedArguments, _ context: Context, staying: Bool, record: (any UndeliveredRecord)? = nil,
        log: any LogSink,
        mute: @escaping @Sendable (ChatBubbles.Chat) async -> Void = { _ in }
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
            return try await DesktopNotifier.connect(
                environment: context.environment, appearance, record: record,
                requests: { request in
                    switch request {
                    case .open(let chat): Self.open(chat, command: open, environment: environment, log: log)
                    case .mute(let chat): await mute(chat)
                    }
                }, log: log)
        } catch {
            throw CLIError("--notify: \(error)", exitCode: .unavailable)
        }
    }

    /// How long "Mute 1 hour" mutes.
    static let muteSpan: Int64 = 3_600_000

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

/// The policy a running command decides by: "Mute 1 hour" changes it while it runs.
final class PolicyState: Sendable {
    private let policy: Mutex<NotificationPolicy>

    init(_ policy: NotificationPolicy) { self.policy = Mutex(policy) }

    /// The decision for `notification` now.
    func decide(_ notification: WatchNotification, unixMillis: Int64) -> NotificationPolicy.Decision {
        policy.withLock { $0.decide(notification, unixMillis: unixMillis) }
    }

    func mute(_ chat: ChatBubbles.Chat, until: Int64) { policy.withLock { $0.mutedChats[chat] = until } }

    /// Whether `unixMillis` is in the quiet hours.
    func isQuiet(unixMillis: Int64) -> Bool {
        policy.withLock { $0.quiet?.contains(minute: LocalTime.minuteOfDay(unixMillis: unixMillis)) ?? false }
    }
}
