public import AdamantCLI
public import AdamantCore
public import AdamantFetch

/// The desktop notification settings `adm-fetch` shares between its one-shot fetch and
/// `watch`, and `adm-push config` shows.
public enum DesktopOptions {
    public static let notify = Flag(
        "notify",
        help:
            "Show notifications on the desktop, one bubble per chat, through its notification service (also \"notify\": true in the config file)."
    )
    public static let open = SingleOption(
        "open", valueName: "command",
        help:
            #"What a click on a bubble runs, with /bin/sh -c (ADM_CHAT_URL, ADM_PARTNER, ADM_ACCOUNT); default xdg-open "$ADM_CHAT_URL"."#
    )
    public static let preview = SingleOption(
        "preview", valueName: "level", allowedValues: NotificationPolicy.Preview.allCases.map(\.rawValue),
        help:
            #"How much shows: full (name and text), sender (name, "New message") or none ("ADAMANT", "New message"); default full."#
    )
    public static let mute = RepeatableOption(
        "mute", valueName: "address", help: "Never notify for this partner (repeatable; adds to the config file's).")
    public static let quiet = SingleOption(
        "quiet", valueName: "hh:mm-hh:mm", help: "Local hours when bubbles are quiet, e.g. 22:00-07:00.")
    public static let quietMode = SingleOption(
        "quiet-mode", valueName: "mode", allowedValues: NotificationPolicy.QuietMode.allCases.map(\.rawValue),
        help: "In quiet hours: silent (low urgency, no sound; the default) or hold (one summary when they end).")
    public static let kinds = SingleOption(
        "kinds", valueName: "list", help: "Which notify, comma-separated: messages, transfers, reactions (default all)."
    )
    /// What every command that shows notifications takes; `open` only where a click is heard.
    public static let policyOptions: [any DeclaredOption] = [preview, mute, quiet, quietMode, kinds]
    public static let options: [any DeclaredOption] = [notify, open] + policyOptions

    /// The PWA's chat route, which `xdg-open` gives the user's browser.
    public static let defaultOpen = #"xdg-open "$ADM_CHAT_URL""#

    public static let help = """
        With --notify (or "notify": true in the config file) each notification is also a
        desktop bubble from "ADAMANT": one per chat, a later message replacing it and counting
        ("3 new messages") until the bubble is closed or clicked. A click, or its "Open",
        runs --open (or the file's "open"; default xdg-open "$ADM_CHAT_URL", the chat in the
        web app) with ADM_CHAT_URL, ADM_PARTNER and ADM_ACCOUNT set and no passphrase, its
        output on standard error.
        It needs a session bus (DBUS_SESSION_BUS_ADDRESS, or $XDG_RUNTIME_DIR/bus) with a
        notification service on it; without one, or when either does not answer within 5 s,
        it exits 69 at the start, saying which.
        What shows and when is one policy for bubbles, --json lines and --exec hooks, as flags
        or in the config file: "preview" (--preview full|sender|none: with none, "ADAMANT" and
        "New message", and no word of the message or name crosses the bus), "mute" (--mute U…:
        partners never shown, or {"address": "U…", "until": "2026-12-24T18:00:00Z"}; a
        bubble's "Mute 1 hour" mutes its chat, kept in --home), "quiet" (--quiet 22:00-07:00,
        local hours), "quietMode" (--quiet-mode silent: low urgency, no sound; hold: one
        summary bubble when the hours end) and "kinds" (--kinds messages,transfers,reactions).
        """

    /// The policy and where each of its settings came from: each flag, else the file's key,
    /// else the default; --mute adds to the file's list, so each muted partner has its own.
    public static func policy(
        _ arguments: ParsedArguments, _ context: Context
    ) throws(CLIError) -> (
        policy: NotificationPolicy, origins: [String: SettingOrigin], muted: [Address: SettingOrigin]
    ) {
        let file = try OutboxOptions.configFile(context)
        var policy = NotificationPolicy()
        var origins: [String: SettingOrigin] = [:]
        func from<Value>(
            _ name: String, _ option: SingleOption, _ key: KeyPath<ConfigFile, Value?>, parse: (String) -> Value?,
            expected: String
        ) throws(CLIError) -> Value? {
            if let text = arguments.value(option) {
                guard let value = parse(text) else {
                    throw .usage("--\(option.spec.name) takes \(expected), got \(text.quoted)")
                }
                origins[name] = .flag("--" + option.spec.name)
                return value
            }
            if let file, let value = file[keyPath: key] {
                origins[name] = .file(file.path)
                return value
            }
            origins[name] = .builtIn
            return nil
        }
        if let value = try from(
            "preview", preview, \.preview, parse: NotificationPolicy.Preview.init(rawValue:),
            expected: "full, sender or none")
        {
            policy.preview = value
        }
        policy.quiet = try from(
            "quiet", quiet, \.quiet, parse: NotificationPolicy.QuietHours.init, expected: "local hours as 22:00-07:00")
        if let value = try from(
            "quietMode", quietMode, \.quietMode, parse: NotificationPolicy.QuietMode.init(rawValue:),
            expected: "silent or hold")
        {
            policy.quietMode = value
        }
        let parseKinds = { (text: String) -> Set<NotificationPolicy.KindGroup>? in
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let groups = names.compactMap(NotificationPolicy.KindGroup.init(rawValue:))
            return groups.count == names.count ? Set(groups) : nil
        }
        if let value = try from(
            "kinds", kinds, \.kinds, parse: parseKinds,
            expected: "a comma-separated list of messages, transfers and reactions")
        {
            policy.kinds = value
        }
        var muted: [Address: SettingOrigin] = [:]
        if let file, let fileMuted = file.mute {
            policy.muted = fileMuted
            for address in fileMuted.keys { muted[address] = .file(file.path) }
        }
        for text in arguments.values(mute) {
            guard let address = try? Address(text) else {
                throw .usage("--mute takes an ADAMANT address, got \(text.quoted)")
            }
            policy.muted[address] = .some(nil)
            muted[address] = .flag("--" + mute.spec.name)
        }
        return (policy, origins, muted)
    }

    /// Whether notifications go to the desktop: `--notify`, else the file's `notify`.
    public static func notifySetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<Bool>
    {
        if arguments.flag(notify) { return Setting(true, .flag("--" + notify.spec.name)) }
        if let file = try OutboxOptions.configFile(context), let value = file.notify {
            return Setting(value, .file(file.path))
        }
        return Setting(false, .builtIn)
    }

    /// What a click runs: `--open`, else the file's `open`, else `defaultOpen`.
    public static func openSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<String>
    {
        if let command = arguments.value(open) {
            guard !command.allSatisfy(\.isWhitespace) else { throw .usage("--open needs a command") }
            return Setting(command, .flag("--" + open.spec.name))
        }
        if let file = try OutboxOptions.configFile(context), let command = file.open {
            return Setting(command, .file(file.path))
        }
        return Setting(defaultOpen, .builtIn)
    }
}
