public import AdamantCLI
import AdamantCore
public import AdamantFetch

/// `adm-fetch watch`'s own options, their help, and what they say once parsed: the command
/// resolves them as it is made, and its run sees only typed settings.
public struct WatchOptions: Sendable {
    /// `--from-height`: where to start instead of the kept cursor.
    public static let fromHeight = SingleOption(
        "from-height", valueName: "height",
        help: "Start at this block (no later than the chain's tip), whatever the kept cursor says.")
    /// `--interval`: between polls once caught up.
    public static let interval = SingleOption(
        "interval", valueName: "seconds",
        help: "Between polls once caught up (default 60 while a node's socket is live, else 10; 0.5 to 3600).")
    /// `--no-live`: poll only.
    public static let noLive = Flag("no-live", help: "Poll only: open no node's socket.")
    /// `--exec`: a hook run for each notification.
    public static let exec = SingleOption(
        "exec", valueName: "command",
        help:
            "Run this with /bin/sh -c for each notification (ADM_TITLE, ADM_BODY, ADM_KIND, ADM_TXN_ID, ADM_THREAD, ADM_ACCOUNT)."
    )
    /// `--json`: JSON lines instead of text.
    public static let json = Flag(
        "json", help: "Print one JSON line per notification (the object adm-fetch --json prints).")

    /// Where the watch starts: the kept cursor, or `--from-height`.
    public let start: WatchStart
    /// From `--interval`; nil for the defaults.
    public let pollInterval: Duration?
    /// `--exec`'s command.
    public let command: String?
    /// `--json`: JSON lines.
    public let json: Bool
    /// Not `--no-live`: follow the nodes' sockets.
    public let live: Bool

    /// The options of `arguments`, checked: bad input is a usage error (64).
    public init(_ arguments: ParsedArguments) throws(CLIError) {
        if !arguments.positional.isEmpty {
            throw .usage("unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional))")
        }
        if let text = arguments.value(Self.fromHeight) {
            guard let height = Int64(text), height >= 0, text.allSatisfy({ ("0"..."9").contains($0) }) else {
                throw .usage("--from-height takes a block height (digits), got \(text.quoted)")
            }
            start = .height(height)
        } else {
            start = .resume
        }
        if let text = arguments.value(Self.interval) {
            guard let seconds = SingleOption.seconds(text, in: 0.5...3600) else {
                throw .usage("--interval takes a number of seconds from 0.5 to 3600, got \(text.quoted)")
            }
            pollInterval = seconds
        } else {
            pollInterval = nil
        }
        if let text = arguments.value(Self.exec), text.trimmingSpaces.isEmpty {
            throw .usage("--exec needs a command")
        }
        command = arguments.value(Self.exec)
        // Refused as the file's empty "open" is, not only once a bubble is clicked.
        if let text = arguments.value(DesktopOptions.open), text.trimmingSpaces.isEmpty {
            throw .usage("--open needs a command")
        }
        (json, live) = (arguments.flag(Self.json), !arguments.flag(Self.noLive))
    }

    /// The watch's configuration as the options set it.
    public var configuration: Watcher.Configuration {
        var configuration = Watcher.Configuration()
        configuration.live = live
        if let pollInterval { (configuration.interval, configuration.liveInterval) = (pollInterval, pollInterval) }
        return configuration
    }

    /// What `watch --help` says below its options.
    public static let discussion =
        """
        Follows the account's incoming transactions, verifies and decrypts each, and prints
        one line per notification: "title: body", or with --json the object adm-fetch
        --json prints, with "via" ("socket" or "poll"), "confirmed" and "account". Several
        accounts are watched by one process: repeat --passphrase-file, or list them as
        "accounts" in the config file, each with its passphrase file and, if it is not the
        shared one, its home; with more than one, each line starts with "[U…] ", the
        account it is for. Live by default: the
        two best nodes whose status offers a socket announce each transaction as they admit
        it, within a second of its sending, and the listings of blocks are still read at the
        start, whenever a socket comes up and every --interval, so nothing a socket misses is
        lost and nothing is shown twice; with no socket live it polls every 10 s. --no-live
        only polls. Where it stopped is kept in --home, so a restart neither
        misses nor repeats one (after a SIGKILL, only the one being shown then may come
        again); the first run starts at the current block. With --exec,
        the command runs once per notification, one at a time, its output on this one's
        (ADM_ACCOUNT names the account);
        for example: --exec 'notify-send -- "$ADM_TITLE" "$ADM_BODY"' ('--', as a message
        may start with a dash). The passphrase is not passed on to it. What a hook passes as
        arguments, any local user can read while it runs (ps, /proc/PID/cmdline): on a
        machine shared with others, read ADM_BODY from the environment inside the hook
        (only its owner can read that) instead of passing it to a program's arguments. While watching, node health is re-checked and a registration
        outbox in --home is flushed now and then. Stops cleanly on SIGINT, SIGTERM or SIGHUP
        (exit 0); exits 69 when no node can be used at the start, 64 for bad input (a
        --from-height past the chain's tip included), and 74 at the first notification that
        cannot be written to standard output or whose --exec cannot be started: that one and
        those after it are shown at the next start. One watch per account and home: a second
        exits 75, naming the process that watches. On a
        terminal, a long catch-up shows its progress on one line of standard error.
        """ + "\n" + DesktopOptions.help + "\n" + """
            A bubble the service could not take (it went away, or quiet hours held it) is recorded
            in --home and shown when it is back, or by the next watch.
            """ + "\n" + LogOptions.help + "\n" + NodeOptions.help + "\n" + PassphraseInput.help
        + " --passphrase-file and --account repeat, one account each; with several accounts, each bubble's title ends with the account's \"name\" from the config file, or its short address."
}
