import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch
import AdamantNodes
import AdamantStore

/// `adm-fetch TXN_ID` / `adm-fetch --payload FILE`: the notification extension's job.
struct FetchCommand: Command {
    static let info = CommandInfo(
        name: "fetch",
        overview: "Find, verify, decrypt and render the transaction behind a push.",
        options: [
            FetchOptions.recipient, FetchOptions.payload, FetchOptions.deadline, FetchOptions.json,
            FetchOptions.noNames,
            DesktopOptions.notify,
        ] + DesktopOptions.policyOptions + [
            OutboxOptions.home
        ]
            + NodeOptions.options
            + AccountPassphrase.options,
        discussion: FetchOptions.discussion)

    let arguments: ParsedArguments
    let options: FetchOptions

    init(_ arguments: ParsedArguments) throws(CLIError) {
        options = try FetchOptions(arguments)
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let policy = try DesktopOptions.policy(arguments, context).policy
        var push: PushPayload
        do { push = try readPush(context) } catch {
            // An extension shows something even for a push it cannot read.
            FetchReport.printFallback(reason: error.message, json: options.json, context)
            throw error
        }
        if let recipient = options.recipient {
            if let pushedFor = push.recipient, pushedFor != recipient {
                throw .invalidInput("--recipient \(recipient) is not the payload's push-recipient \(pushedFor)")
            }
            push.recipient = recipient
        }
        // libcurl loads on its own thread while this one derives the key and opens the log,
        // unless no node is asked (a payload that carries its transaction, and no names). The
        // request cannot go before the load ends, so a third thread for the derivation would
        // only take a CPU from the load: about 2 ms of a cold fetch on two cores.
        if push.transaction == nil || !options.noNames { CurlTransport.startLoading() }
        let keys: AccountKeys
        do {
            keys = try await AccountPassphrase.keys(
                arguments, context, derivingHere: true, recipient: push.recipient ?? push.transaction?.recipientId)
        } catch {
            // No passphrase (a locked keyring, none chosen) is a failure like any other.
            FetchReport.printFallback(
                reason: error.message, json: options.json, carried: push.transaction, context)
            throw error
        }
        // Bad input is said first (64), then a missing desktop (69), before any node is asked.
        let wording = Wording(environment: context.environment)
        let desktop = try await DesktopOutput.notifier(arguments, context, wording: wording)
        let (home, log) = FetchSetup.log(arguments, context)
        let pool = try await NodeOptions.pool(arguments, context, home: home, account: keys) {
            context.output.error("warning: " + $0)
        }
        // Through a proxy, as long as the route's measured latency says.
        let deadline = options.deadline ?? pool.allowingDeadline(.seconds(25))
        var configuration = Fetcher.Configuration()
        configuration.deadline = deadline
        configuration.wording = wording
        defer { HealthCache.save(pool, home: home) }
        let client = NodeClient(pool: pool, deadline: deadline)
        var names: (@Sendable (Address, Duration) async -> String?) = { _, _ in nil }
        if !options.noNames {
            let book = AddressBookSource(
                keys: keys, client: client, home: log == nil ? nil : home, wallClock: context.clocks.wall)
            book.prefetch(within: deadline)
            names = { address, left in await book.name(of: address, within: left) }
        }
        let fetcher = Fetcher(
            keys: keys, client: client, configuration: configuration,
            publicKeys: log.map { $0 as any PublicKeyCache } ?? MemoryPublicKeyCache(), name: names)
        var result = await fetcher.fetch(push)
        if result.failure == nil, let log {
            let now = context.clocks.wall.unixMillis()
            do {
                result.duplicate = try await log.recordShown(
                    result.id, account: await keys.keyPair.address, pushed: true, at: now,
                    height: result.transaction?.height)
            } catch {
                context.output.error("warning: \(error); duplicates are not detected")
            }
        }
        FetchReport.print(result, json: options.json, context)
        // The bubble follows the policy; the output above is the extension's, whole.
        if let desktop, !result.duplicate {
            let pushed = WatchNotification(result: result, via: .poll, account: await keys.keyPair.address)
            var policy = policy
            // "Mute 1 hour" on a watch's bubble is kept in the home, for this bubble too.
            if let log {
                do {
                    try await policy.muteChats(of: pushed.account, keptIn: log, now: context.clocks.wall.unixMillis())
                } catch {
                    context.output.error("warning: the muted chats cannot be read, none is muted: \(error)")
                }
            }
            let now = NotificationDelivery.Moment(unixMillis: context.clocks.wall.unixMillis())
            for bubble in NotificationDelivery.bubbles(ofPushed: pushed, policy: policy, at: now, wording: wording) {
                do throws(ServiceFailure) { _ = try await desktop.notify(bubble) } catch {
                    throw CLIError("--notify: \(error)", exitCode: .unavailable)
                }
            }
        }
        return FetchReport.exitCode(for: result.failure)
    }

    /// The push from `TXN_ID` or `--payload`.
    private func readPush(_ context: Context) throws(CLIError) -> PushPayload {
        if let id = options.id { return PushPayload(id: id) }
        guard let source = options.payload else {
            throw .usage("give a transaction id, or --payload FILE")
        }
        let bytes = try PayloadInput.read(source, limit: PushPayload.maximumSize)
        do { return try PushPayload(json: bytes) } catch { throw .invalidInput("--payload: \(error)") }
    }
}
