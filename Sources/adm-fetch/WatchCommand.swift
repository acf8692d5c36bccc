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
    static let info = CommandInfo(
        name: "watch",
        overview: "Show the account's incoming messages and transfers as they arrive, with no push service.",
        options: [
            WatchOptions.fromHeight, WatchOptions.interval, WatchOptions.noLive, WatchOptions.exec, WatchOptions.json,
        ]
            + DesktopOptions.options
            + [
                LogOptions.verbose, OutboxOptions.home, OutboxOptions.service, OutboxOptions.serviceAddress,
                OutboxOptions.servicePublicKey,
            ]
            + NodeOptions.options
            + [WatchedAccount.passphraseFiles, WatchedAccount.accountsInKeyring],
        discussion: WatchOptions.discussion)

    let arguments: ParsedArguments
    let options: WatchOptions

    init(_ arguments: ParsedArguments) throws(CLIError) {
        options = try WatchOptions(arguments)
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
        var fetching = Fetcher.Configuration()
        fetching.wording = wording
        let watchers = await WatchSetup.watchers(
            of: accounts, pools: pools, logs: logs, configuration: options.configuration, fetching: fetching, arguments,
            context, logger)

        let lines = NotificationLines(
            output: context.output, progress: logger.progress, json: options.json,
            named: accounts.count > 1)
        let hook = options.command.map {
            NotificationHook(command: $0, environment: context.environment, logger: logger)
        }
        var delivery = NotificationDelivery.Configuration(policy: policy, desktop: desktop != nil, stays: true)
        delivery.wording = wording
        if accounts.count > 1 {
            delivery.accountLabels = Dictionary(accounts.map { ($0.keyPair.address, $0.label) }) { first, _ in first }
        }
        let pipeline = NotificationPipeline(
            WatchGroup(watchers), delivery: delivery, service: desktop, events: logger)
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
            try await stop.run { () throws(WatchGroup.Failure) in
                try await pipeline.run(from: options.start, outputs: outputs)
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
