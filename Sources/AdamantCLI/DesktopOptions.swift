/// The desktop notification settings `adm-fetch` shares between its one-shot fetch and
/// `watch`, and `adm-push config` shows.
public enum DesktopOptions {
    public static let notify = Flag(
        "notify", help: "Show notifications on the desktop, one bubble per chat, through its notification service (also \"notify\": true in the config file).")
    public static let open = SingleOption(
        "open", valueName: "command",
        help: #"What a click on a bubble runs, with /bin/sh -c (ADM_CHAT_URL, ADM_PARTNER, ADM_ACCOUNT); default xdg-open "$ADM_CHAT_URL"."#)
    public static let options: [any DeclaredOption] = [notify, open]

    /// The PWA's chat route, which `xdg-open` gives the user's browser.
    public static let defaultOpen = #"xdg-open "$ADM_CHAT_URL""#

    public static let help = """
        With --notify (or "notify": true in the config file) each notification is also a
        desktop bubble from "ADAMANT": one per chat, a later message replacing it and counting
        ("3 new messages") until the bubble is closed or clicked. A click, or its "Open",
        runs --open (or the file's "open"; default xdg-open "$ADM_CHAT_URL", the chat in the
        web app) with ADM_CHAT_URL, ADM_PARTNER and ADM_ACCOUNT set and no passphrase.
        It needs a session bus (DBUS_SESSION_BUS_ADDRESS, or $XDG_RUNTIME_DIR/bus) with a
        notification service on it; without one it exits 69 at the start, saying which.
        """

    /// Whether notifications go to the desktop: `--notify`, else the file's `notify`.
    public static func notifySetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<Bool> {
        if arguments.flag(notify) { return Setting(true, .flag("--" + notify.spec.name)) }
        if let file = try OutboxOptions.configFile(context), let value = file.notify { return Setting(value, .file(file.path)) }
        return Setting(false, .builtIn)
    }

    /// What a click runs: `--open`, else the file's `open`, else `defaultOpen`.
    public static func openSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<String> {
        if let command = arguments.value(open) {
            guard !command.allSatisfy(\.isWhitespace) else { throw .usage("--open needs a command") }
            return Setting(command, .flag("--" + open.spec.name))
        }
        if let file = try OutboxOptions.configFile(context), let command = file.open { return Setting(command, .file(file.path)) }
        return Setting(defaultOpen, .builtIn)
    }
}
