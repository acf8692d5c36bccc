public import AdamantCLI
public import AdamantCore
public import AdamantFetch
public import AdamantNodes
public import AdamantPush
public import AdamantStore

/// What `adm-fetch watch` opens for its accounts before it watches: their pools, their logs
/// and their outboxes.
public enum WatchSetup {
    /// Through a SOCKS proxy each account reads on its own circuit, sockets and all: a pool
    /// each, in the accounts' order. Else the accounts share one pool and one socket per node:
    /// one pool, the first account's. A warning about the nodes is logged once, not once an
    /// account.
    public static func pools(
        for accounts: [WatchedAccount], ownCircuits: Bool, _ arguments: ParsedArguments, _ context: Context,
        _ logger: Logger
    ) async throws(CLIError) -> [NodePool] {
        var pools: [NodePool] = []
        for account in ownCircuits ? accounts : [accounts[0]] {
            let warned = !pools.isEmpty
            pools.append(
                try await NodeOptions.pool(
                    arguments, context, home: account.home, account: AccountKeys(account.keyPair)
                ) {
                    if !warned { logger.log(.warning, $0) }
                })
        }
        return pools
    }

    /// Each account's notification log: one per home, shared by the accounts kept there.
    public static func logs(of accounts: [WatchedAccount]) throws(CLIError) -> [Address: NotificationLog] {
        var byHome: [String: NotificationLog] = [:]
        var byAccount: [Address: NotificationLog] = [:]
        for account in accounts {
            if byHome[account.home] == nil {
                do { byHome[account.home] = try NotificationLog(home: account.home) } catch {
                    throw CLIError(storeError: error)
                }
            }
            byAccount[account.keyPair.address] = byHome[account.home]
        }
        return byAccount
    }

    /// The registration outbox, when the home has one (never created here); without it, or
    /// when it cannot be opened, watching goes on alone.
    public static func outbox(
        of account: WatchedAccount, nodes: NodeClient, _ arguments: ParsedArguments, _ context: Context,
        _ logger: Logger
    ) async -> Outbox? {
        guard SmallFile.exists(atPath: account.home + "/" + Outbox.storeFileName) else { return nil }
        do {
            return try await OutboxOptions.open(
                arguments, context, keys: AccountKeys(account.keyPair), nodes: nodes,
                log: Demoted(logger, as: "outbox"))
        } catch {
            logger.log(.warning, "watch: the registration outbox is not flushed while watching: \(error.message)")
            return nil
        }
    }

    /// A watch of each account through its pool (`pools` as `pools(for:)` gave them), recorded
    /// in its log, with its outbox flushed beside it when its home has one.
    public static func watchers(
        of accounts: [WatchedAccount], pools: [NodePool], logs: [Address: NotificationLog],
        configuration: Watcher.Configuration, fetching: Fetcher.Configuration, _ arguments: ParsedArguments,
        _ context: Context, _ logger: Logger
    ) async -> [Watcher] {
        var watchers: [Watcher] = []
        for (index, account) in accounts.enumerated() {
            let pool = pools[pools.count == accounts.count ? index : 0]
            guard let log = logs[account.keyPair.address] else { continue }  // every account has one
            let fetcher = Fetcher(
                keyPair: account.keyPair, client: NodeClient(pool: pool, deadline: pool.allowing(.seconds(15))),
                configuration: fetching, publicKeys: log)
            let sideTask = await outbox(of: account, nodes: fetcher.client, arguments, context, logger).map {
                outbox in { @Sendable in await PeriodicFlush(outbox: outbox, events: logger).run() }
            }
            watchers.append(
                Watcher(
                    fetcher: fetcher, log: log, configuration: configuration, sideTask: sideTask, events: logger,
                    progress: logger.progress.map(WatchReport.showing)))
        }
        return watchers
    }
}
