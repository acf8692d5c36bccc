public import AdamantCLI
import AdamantPush
import AdamantStore

/// What the man pages of adm-push and adm-fetch say of the environment and files behind the
/// options of this module (the nodes, the home, the config file, the desktop), for a tool only
/// when it declares that option. Each says what the code does (`OutboxOptions.homeDirectory`,
/// `NodeList.resolve`, `ConfigFile.defaultPath`).
public enum AccountManual {
    /// The entries, for `Tool`'s man page.
    public static let supplement = ManualSupplement(environment: environment, files: files)

    typealias Entry = ManualText.Entry

    static func environment(_ declared: Set<OptionSpec>) -> [Entry] {
        let nodes = declared.contains(NodeOptions.node.spec)
        let home = declared.contains(OutboxOptions.home.spec)
        var entries: [Entry] = []
        if declared.contains(AccountPassphrase.account.spec) || declared.contains(WatchedAccount.accountsInKeyring.spec)
        {
            entries.append(
                Entry(
                    name: "ADM_ACCOUNT",
                    text: """
                        Whose passphrase to take from the keyring when it holds several and no --account is \
                        given (an address, U and digits); the config file's "account" otherwise.
                        """))
            entries.append(
                Entry(
                    name: "DBUS_SESSION_BUS_ADDRESS",
                    text: """
                        The session bus (else $XDG_RUNTIME_DIR/bus), on which the desktop's keyring, the \
                        Secret Service, keeps the passphrase 'adm-push login' stored.
                        """))
        }
        if declared.contains(DesktopOptions.notify.spec) {
            entries.append(
                Entry(
                    name: "LANGUAGE, LC_ALL, LC_MESSAGES, LANG",
                    text: """
                        The language of the notifications' own words (ru, de, fr, it, ar; English otherwise), as \
                        a desktop program reads it: LANGUAGE's list first unless the locale is C or POSIX, and \
                        the locale must be on the system. LC_NUMERIC (else LC_ALL or LANG) says how their numbers \
                        are written. What a sender wrote, addresses, ids and --json's machine fields never change.
                        """))
            entries.append(
                Entry(
                    name: "TEXTDOMAINDIR",
                    text: """
                        Where the translations are (LANG/LC_MESSAGES/adm-push.mo), when an absolute path; else \
                        share/locale beside the program's directory, /usr/share/locale when installed.
                        """))
        }
        if nodes {
            entries.append(
                Entry(
                    name: "ADM_NODES",
                    text: """
                        Comma-separated node URLs, used when no --node is given. Set but empty (or holding no \
                        URL) is an error, never a fallback to the config file or the built-in list.
                        """))
            entries.append(
                Entry(
                    name: NodeOptions.proxyVariable,
                    text: """
                        The proxy every request goes through when --proxy is not given: socks5h://host:port \
                        (Tor's kind: the proxy resolves node names), socks5://, http://, or none. Through a SOCKS \
                        proxy each account's requests carry a SOCKS username of their own (a keyed hash of its \
                        secret key), so Tor keeps accounts on separate circuits.
                        """))
        }
        if home {
            entries.append(
                Entry(name: "ADM_PUSH_HOME", text: "The home directory when --home is not given (ignored when empty)."))
            entries.append(
                Entry(
                    name: "XDG_STATE_HOME",
                    text: """
                        Without --home, ADM_PUSH_HOME and a home in the config file, the home is \
                        $XDG_STATE_HOME/adm-push when this is an absolute path, else ~/.local/state/adm-push.
                        """))
        }
        if nodes || home {
            entries.append(
                Entry(
                    name: "XDG_CONFIG_HOME",
                    text: """
                        The config file is $XDG_CONFIG_HOME/adm-push/config.json when this is an absolute path, \
                        else ~/.config/adm-push/config.json.
                        """))
        }
        if home || nodes {
            entries.append(
                Entry(
                    name: "HOME",
                    text:
                        "Where ~ is, for the defaults above and a home in the config file; not used unless it is an absolute path."
                ))
        }
        if nodes {
            entries.append(
                Entry(
                    name: "http_proxy, https_proxy, ALL_PROXY, NO_PROXY",
                    text: """
                        Read when no proxy is set (--proxy, ADM_PROXY, the config file's "proxy"), by libcurl's \
                        rules: a proxy named there carries the connections to the nodes as one set by --proxy \
                        would, and 'nodes' and 'config' say which. A value that names no socks5h://, socks5:// or \
                        http:// proxy is an error. --proxy none turns them off.
                        """))
        }
        return entries
    }

    /// The desktop notifications' keys of the config file, for a tool that has them.
    static func desktopKeys(_ declared: Set<OptionSpec>) -> String {
        guard declared.contains(DesktopOptions.notify.spec) else { return "" }
        return """
            For desktop notifications: "notify": true, "open": "command", "preview": "full|sender|none", \
            "mute": ["U...", {"address": "U...", "until": "2026-12-24T18:00:00Z"}], "quiet": "22:00-07:00", \
            "quietMode": "silent|hold", "kinds": ["messages", "transfers", "reactions"].
            """ + " "
    }

    static func files(_ declared: Set<OptionSpec>) -> [Entry] {
        var entries: [Entry] = []
        if declared.contains(NodeOptions.node.spec) || declared.contains(OutboxOptions.home.spec) {
            entries.append(
                Entry(
                    name: "$XDG_CONFIG_HOME/adm-push/config.json",
                    text: """
                        The settings, at most 1 MiB of JSON, every key optional: {"nodes": ["https://..."], \
                        "nethash": "hex", "proxy": "socks5h://127.0.0.1:9050", "home": "~/dir", "service": "ns"}. \
                        \(desktopKeys(declared))\
                        \(SettingOrigin.precedence) The file is read, and checked whole, only by a command \
                        needing a setting it holds; an unknown key, a wrong type or broken JSON is an error \
                        naming the key or the line. 'adm-push config' shows where each setting came from.
                        """))
        }
        if declared.contains(OutboxOptions.home.spec) {
            let home = "$XDG_STATE_HOME/adm-push/"
            entries.append(
                Entry(
                    name: home,
                    text:
                        "The home (--home, ADM_PUSH_HOME, the config file's home): a directory of mode 700 that adm-push and adm-fetch share."
                ))
            entries.append(
                Entry(
                    name: home + Outbox.storeFileName,
                    text: """
                        The registration outbox (SQLite): the intents for each account's tokens, sealed with a \
                        key derived from the passphrase, and the attempts made to send them.
                        """))
            entries.append(
                Entry(
                    name: home + NotificationLog.fileName,
                    text: """
                        What adm-fetch showed (the pushes among them are the evidence adm-push status and repair \
                        read), partners' public keys, and where adm-fetch watch stopped; the chats a bubble's \
                        "Mute 1 hour" muted, until when; and the notifications not shown yet on the desktop (its \
                        service was away, or quiet hours held them), which the next watch shows.
                        """))
            entries.append(
                Entry(
                    name: home + HealthCache.fileName,
                    text: """
                        The node health the last run measured, so the next process asks the best node at once; \
                        older than \(HealthCache.maximumAge.components.seconds / 60) minutes, it is measured again.
                        """))
            entries.append(
                Entry(
                    name: home + "contacts-ADDRESS.json",
                    text: """
                        The account's address book (its KVS contact_list, still encrypted, as a node gave it), \
                        for adm-fetch's titles; asked of the nodes again after 5 minutes.
                        """))
        }
        return entries
    }
}
