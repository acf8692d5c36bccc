import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantDesktop
import AdamantFetch
import AdamantNodes
import AdamantStore

/// `adm-fetch TXN_ID` / `adm-fetch --payload FILE`: the notification extension's job.
struct FetchCommand: Command {
    static let recipient = SingleOption(
        "recipient", valueName: "address",
        help: "The address the push was for (push-recipient); must be this passphrase's.")
    static let payload = SingleOption(
        "payload", valueName: "file", valueKind: .file,
        help: "Read the push as delivered (APNs or FCM JSON) from a file, or - for standard input.")
    static let noNames = Flag("no-names", help: "Title with the partner's address; skip the address-book lookup.")
    /// The shared option's name and parsing, with fetch's own default.
    static let deadline = SingleOption(
        "deadline", valueName: "seconds",
        help: "End by then, whatever the nodes do (default 25; through a proxy, longer as its measured latency needs).")
    static let json = Flag(
        "json", help: "Print one JSON object: the transaction, the notification, and on failure fallback and reason.")

    static let info = CommandInfo(
        name: "fetch",
        overview: "Find, verify, decrypt and render the transaction behind a push.",
        options: [recipient, payload, deadline, json, noNames, DesktopOptions.notify] + DesktopOptions.policyOptions + [
            OutboxOptions.home
        ]
            + NodeOptions.options
            + AccountPassphrase.options,
        discussion: """
            Give the transaction id, or --payload with the push itself; a payload that carries the
            whole transaction (FCM's data.txn, as adamant-ns sends it) needs no node, and is
            verified all the same; it is for the transaction's recipient, and the "txn-id" and
            "push-recipient" beside it, placeholders in that service, are ignored. The transaction is
            looked for in blocks, then in the nodes' pools, until --deadline (default 25 s).
            Exits 0 when shown, 65 when it cannot be verified or is not this account's, 69 when
            no node had it by the deadline or none could be used, 64 for bad input (a push for
            another account included). On any failure the generic text is still printed.
            With --notify (or "notify": true in the config file) it is also shown on the
            desktop, as one bubble with no action (this process is gone by the time it is
            clicked); with no session bus or notification service, exit 69 once the input is
            checked and before any node is asked, and 69 when the service fails to take it. A push seen before is not shown
            again, nor one in a chat muted by a bubble's "Mute 1 hour".
            """ + "\n" + NodeOptions.help + "\n" + AccountPassphrase.help)

    let arguments: ParsedArguments
    let id: TransactionID?
    let recipient: Address?
    /// Nil for the default, which depends on the route.
    let deadline: Duration?

    init(_ arguments: ParsedArguments) throws(CLIError) {
        switch (arguments.positional.count, arguments.value(Self.payload)) {
        case (1, nil):
            let text = arguments.positional[0]
            guard let id = TransactionID(text) else {
                throw .usage("\(text.quoted) is not a transaction id (digits, below 2^64)")
            }
            self.id = id
        case (0, _?):
            id = nil
        case (0, nil):
            throw .usage("give a transaction id, or --payload FILE")
        default:
            throw .usage(
                arguments.value(Self.payload) == nil
                    ? "unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional.dropFirst()))"
                    : "give a transaction id or --payload, not both")
        }
        if let text = arguments.value(Self.recipient) {
            do { recipient = try Address(text) } catch {
                throw .usage("--recipient \(text.quoted) is not an address: \(error)")
            }
        } else {
            recipient = nil
        }
        deadline = arguments.value(Self.deadline) == nil ? nil : try OutboxOptions.deadline(arguments)
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let policy = try DesktopOptions.policy(arguments, context).policy
        var push: PushPayload
        do { push = try readPush(context) } catch {
            // An extension shows something even for a push it cannot read.
            FetchReport.printFallback(reason: error.message, json: arguments.flag(Self.json), context)
            throw error
        }
        if let recipient {
            if let pushedFor = push.recipient, pushedFor != recipient {
                throw .invalidInput("--recipient \(recipient) is not the payload's push-recipient \(pushedFor)")
            }
            push.recipient = recipient
        }
        // libcurl loads on its own thread while this one derives the key and opens the log,
        // unless no node is asked (a payload that carries its transaction, and no names). The
        // request cannot go before the load ends, so a third thread for the derivation would
        // only take a CPU from the load: about 2 ms of a cold fetch on two cores.
        if push.transaction == nil || !arguments.flag(Self.noNames) { CurlTransport.startLoading() }
        let keys: AccountKeys
        do {
            keys = try await AccountPassphrase.keys(
                arguments, context, derivingHere: true, recipient: push.recipient ?? push.transaction?.recipientId)
        } catch {
            // No passphrase (a locked keyring, none chosen) is a failure like any other.
            FetchReport.printFallback(
                reason: error.message, json: arguments.flag(Self.json), carried: push.transaction, context)
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
        let deadline = self.deadline ?? pool.allowingDeadline(.seconds(25))
        var configuration = Fetcher.Configuration()
        configuration.deadline = deadline
        configuration.wording = wording
        defer { HealthCache.save(pool, home: home) }
        let client = NodeClient(pool: pool, deadline: deadline)
        var names: (@Sendable (Address, Duration) async -> String?) = { _, _ in nil }
        if !arguments.flag(Self.noNames) {
            let book = AddressBookSource(keys: keys, client: client, home: log == nil ? nil : home)
            book.prefetch(within: deadline)
            names = { address, left in await book.name(of: address, within: left) }
        }
        let fetcher = Fetcher(
            keys: keys, client: client, configuration: configuration,
            publicKeys: log.map { $0 as any PublicKeyCache } ?? MemoryPublicKeyCache(), name: names)
        var result = await fetcher.fetch(push)
        if result.failure == nil, let log {
            let now = context.wallClock.unixMillis()
            do {
                result.duplicate = try await log.recordShown(
                    result.id, account: await keys.keyPair.address, pushed: true, at: now,
                    height: result.transaction?.height)
            } catch {
                context.output.error("warning: \(error); duplicates are not detected")
            }
        }
        FetchReport.print(result, json: arguments.flag(Self.json), context)
        // The bubble follows the policy; the output above is the extension's, whole.
        if let desktop, !result.duplicate {
            let pushed = WatchNotification(result: result, via: .poll, account: await keys.keyPair.address)
            var policy = policy
            // "Mute 1 hour" on a watch's bubble is kept in the home, for this bubble too.
            if let log {
                do {
                    try await policy.muteChats(of: pushed.account, keptIn: log, now: context.wallClock.unixMillis())
                } catch {
                    context.output.error("warning: the muted chats cannot be read, none is muted: \(error)")
                }
            }
            let now = NotificationDelivery.Moment(unixMillis: context.wallClock.unixMillis())
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
        if let id { return PushPayload(id: id) }
        guard let source = arguments.value(Self.payload) else {
            throw .usage("give a transaction id, or --payload FILE")
        }
        let bytes = try PayloadInput.read(source, limit: PushPayload.maximumSize)
        do { return try PushPayload(json: bytes) } catch { throw .invalidInput("--payload: \(error)") }
    }
}
