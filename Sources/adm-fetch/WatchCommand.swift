import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch
import AdamantNodes
import AdamantPush
import AdamantStore

/// `adm-fetch watch`: notifications with no push service, from the nodes' sockets and listings.
struct WatchCommand: Command {
    static let fromHeight = SingleOption(
        "from-height", valueName: "height",
        help: "Start at this block (no later than the chain's tip), whatever the kept cursor says.")
    static let interval = SingleOption(
        "interval", valueName: "seconds",
        help: "Between polls once caught up (default 60 while a node's socket is live, else 10; 0.5 to 3600).")
    static let noLive = Flag("no-live", help: "Poll only: open no node's socket.")
    static let exec = SingleOption(
        "exec", valueName: "command",
        help:
            "Run this with /bin/sh -c for each notification (ADM_TITLE, ADM_BODY, ADM_KIND, ADM_TXN_ID, ADM_THREAD, ADM_ACCOUNT)."
    )
    static let json = Flag("json", help: "Print one JSON line per notification (the object adm-fetch --json prints).")

    static let info = CommandInfo(
        name: "watch",
        overview: "Show the account's incoming messages and transfers as they arrive, with no push service.",
        options: [fromHeight, interval, noLive, exec, json] + DesktopOptions.options
            + [
                LogOptions.verbose, OutboxOptions.home, OutboxOptions.service, OutboxOptions.serviceAddress,
                OutboxOptions.servicePublicKey,
            ]
            + NodeOptions.options
            + [WatchedAccount.passphraseFiles, WatchedAccount.accountsInKeyring],
        discussion: """
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
    )

    let arguments: ParsedArguments
    let start: WatchStart
    /// From --interval; nil for the defaults.
    let pollInterval: Duration?
    let command: String?

    init(_ arguments: ParsedArguments) throws(CLIError) {
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
        _ = try OutboxOptions.service(arguments)
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let logger = try LogOptions.logger(arguments, context)
        // A broken config file before the passphrase is asked for.
        try OutboxOptions.checkSettings(arguments, context)
        let policy = try DesktopOptions.policy(arguments, context).policy
        // From here a signal stops the watch cleanly (0), one waiting for the keyring's unlock too.
        let stop = StopOnSignals()
        defer { stop.release() }
        let accounts: [WatchedAccount]
        do {
            accounts = try await stop.run { [arguments] () throws(CLIError) in
                try await WatchedAccount.all(arguments, context) { logger.log(.warning, "watch: " + $0) }
            }
        } catch  where stop.requested {
            logger.log(.info, "watch: stopped by \(stop.signalName ?? "a signal") before it began")
            return .success
        }
        // Through a SOCKS proxy each account reads on its own circuit, sockets and all; else
        // the accounts share one pool and one socket per node.
        let ownCircuits = try NodeOptions.separatesAccounts(arguments, context)
        // Bad input is said first (64), then a missing desktop (69).
        let opener = try ChatOpener(arguments, context, log: logger)
        let wording = Wording(environment: context.environment)
        let desktop = try await DesktopOutput.notifier(arguments, context, wording: wording)
        if let server = desktop?.server { logger.log(.info, "desktop: notifications through \(server)") }
        let pools = try await WatchSetup.pools(for: accounts, ownCircuits: ownCircuits, arguments, context, logger)
        defer { for (pool, account) in zip(pools, accounts) { HealthCache.save(pool, home: account.home) } }
        let logs = try WatchSetup.logs(of: accounts)
        var configuration = Watcher.Configuration()
        configuration.live = !arguments.flag(Self.noLive)
        if let pollInterval { (configuration.interval, configuration.liveInterval) = (pollInterval, pollInterval) }
        var fetching = Fetcher.Configuration()
        fetching.wording = wording
        let watchers = await WatchSetup.watchers(
            of: accounts, pools: pools, logs: logs, configuration: configuration, fetching: fetching, arguments,
            context, logger)

        let lines = NotificationLines(
            output: context.output, progress: logger.progress, json: arguments.flag(Self.json),
            named: accounts.count > 1)
        let hook = command.map { NotificationHook(command: $0, environment: context.environment, logger: logger) }
        var delivery = NotificationDelivery.Configuration(policy: policy, desktop: desktop != nil, stays: true)
        delivery.wording = wording
        if accounts.count > 1 {
            delivery.accountLabels = Dictionary(accounts.map { ($0.keyPair.address, $0.label) }) { first, _ in first }
        }
        let pipeline = NotificationPipeline(
            WatchGroup(watchers), delivery: delivery, service: desktop, events: logger, wallClock: context.wallClock,
            clock: context.clock)
        let outputs = NotificationPipeline.Outputs(
            show: { notification throws(HandOverFailure) in
                guard lines.print(notification) else {
                    throw .handler(stop.requested ? ShowFailure.outputStopped : .outputUnwritable)
                }
                try await hook?.run(for: notification)
            }, open: opener.open,
            started: { account, height in
                logger.log(.info, "Watching \(account) from block \(height); stop with Ctrl-C.")
            })
        do throws(WatchGroup.Failure) {
            try await stop.run { () throws(WatchGroup.Failure) in try await pipeline.run(from: start, outputs: outputs)
            }
        } catch  where stop.requested {
            WatchReport.stopped(while: error, logger)
        } catch {
            return try WatchReport.exitCode(for: error, logger)
        }
        if let signal = stop.signalName { logger.log(.info, "watch: stopped by \(signal)") }
        return .success
    }
}
