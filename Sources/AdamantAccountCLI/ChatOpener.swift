public import AdamantCLI
public import AdamantCore
public import AdamantFetch
public import AdamantNodes

/// What a click on a bubble does: `--open` (or the file's `open`) for the chat, started as
/// `--exec` starts its hook, but neither waited for nor stopped (the browser it opens is the
/// user's now), with its output on standard error, off the notifications' lines.
public struct ChatOpener: Sendable {
    let command: String
    /// Which holds no passphrase: `Context.environment` never does.
    let environment: [String: String]
    let log: any LogSink

    /// The opener the settings choose, with `context`'s environment.
    public init(_ arguments: ParsedArguments, _ context: Context, log: any LogSink) throws(CLIError) {
        command = try DesktopOptions.openSetting(arguments, context).value
        (environment, self.log) = (context.environment, log)
    }

    /// The PWA's route to a chat.
    public static func chatURL(_ partner: Address) -> String { "https://msg.adamant.im/chats/\(partner)/" }

    /// Starts the command for `chat`.
    public func open(_ chat: ChatBubbles.Chat) {
        var environment = environment
        environment["ADM_CHAT_URL"] = Self.chatURL(chat.partner)
        environment["ADM_PARTNER"] = chat.partner.description
        environment["ADM_ACCOUNT"] = chat.account.description
        let log = self.log
        let failure = ChildProcess.launch("/bin/sh", ["-c", command], environment: environment) { outcome in
            if !outcome.succeeded {
                log.log(.warning, "desktop: the open command for the chat with \(chat.partner) \(outcome)")
            }
        }
        if let failure { log.log(.warning, "desktop: the open command could not start: \(failure)") }
    }
}
