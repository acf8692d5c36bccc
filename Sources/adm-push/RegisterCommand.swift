import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantPush

/// `adm-push register`: commit the wish that a token be registered, then wait for the chain.
struct RegisterCommand: Command {
    static let token = SingleOption(
        "token", valueName: "token", help: "The push token: lowercase hex for APNs, the registration token for FCM.")
    static let provider = SingleOption(
        "provider", valueName: "provider", allowedValues: PushProvider.allCases.map(\.rawValue),
        help: "Which push service the token belongs to.")
    static let deviceId = SingleOption(
        "device-id", valueName: "id",
        help: "adamant-ns: the device to register instead of this home's own (letters, digits, . : _ -).")
    static let noWait = Flag(
        "no-wait", help: "Return once the intent is stored (exit 75) instead of waiting for a block.")

    static let info = CommandInfo(
        name: "register",
        overview: "Register a push token with the notification service, through the chain.",
        options: [token, provider, deviceId, noWait, OutboxOptions.deadline, OutboxOptions.json]
            + OutboxOptions.options,
        discussion: """
            The intent is stored durably before anything is sent, and only the newest intent for a
            token is ever sent: a remove still queued from earlier is cancelled. Exits 0 once the
            signal is in a block, 75 if it is still queued at the deadline or when SIGINT, SIGTERM or SIGHUP
            end the wait (it stays queued), 1 if it needs you (not enough ADM for the 0.001 ADM fee,
            or refused for good).
            """ + "\n" + OutboxOptions.help)

    let arguments: ParsedArguments
    let signal: PushSignal

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else { throw .usage("register takes no arguments") }
        guard let token = arguments.value(Self.token) else { throw .usage("--token is required") }
        guard let name = arguments.value(Self.provider) else {
            throw .usage("--provider is required (apns, apns-sandbox or fcm)")
        }
        guard let provider = PushProvider(rawValue: name) else {
            throw .usage("unknown provider \(name.quoted): use apns, apns-sandbox or fcm")
        }
        do {
            signal = try PushSignal(
                token: token, provider: provider, action: .add, deviceId: arguments.value(Self.deviceId))
        } catch {
            throw .invalidInput("invalid --token or --device-id: \(error)")
        }
        _ = try OutboxOptions.service(arguments)
        _ = try OutboxOptions.deadline(arguments)
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        try OutboxOptions.checkSettings(arguments, context)
        let service = try OutboxOptions.serviceSetting(arguments, context).value
        switch (service.kind, signal.provider) {
        case (.ans, .apnsSandbox) where service == .adamantIOS:
            context.output.error(
                "Warning: the iOS notification service always pushes to production APNs and deletes a sandbox token after its first push."
            )
        case (.ns, .apnsSandbox):
            throw .invalidInput(
                "adamant-ns has no apns-sandbox provider (it takes fcm and apns): give a production token, or --service ans"
            )
        case (.ns, .apns):
            context.output.error(
                "Warning: adamant-ns keeps an apns device but cannot push to it yet (its APNs sender is not written): prefer fcm, or --service ans for the iOS app's service."
            )
        default:
            break
        }
        let keys = try await AccountPassphrase.keys(arguments, context)
        let outbox = try await OutboxOptions.open(arguments, context, keys: keys)
        let intent: Intent
        do {
            intent = try await outbox.register(
                token: signal.token, provider: signal.provider, deviceId: signal.deviceId)
        } catch {
            throw CLIError(outboxError: error)
        }
        return try await OutboxCommand.finish([intent], outbox: outbox, arguments: arguments, context)
    }
}

/// What `register`, `unregister` and `repair` do once their intents are stored.
enum OutboxCommand {
    static func finish(_ intents: [Intent], outbox: Outbox, arguments: ParsedArguments, _ context: Context)
        async throws(CLIError) -> ExitCode
    {
        let json = arguments.flag(OutboxOptions.json)
        let keys = Set(intents.map { outbox.key(of: $0.signal) })
        if arguments.flag(RegisterCommand.noWait) {
            if json {
                context.output.printJSON(OutboxReport.ReportJSON(tokens: [], balance: nil, networkProblem: nil))
            }
            for intent in intents where !json {
                context.output.print(
                    "queued: \(intent.action.rawValue) \(OutboxReport.hint(intent.signal.token)) (intent \(intent.sequence))"
                )
            }
            return .temporaryFailure
        }
        let wait = try OutboxOptions.wait(arguments, for: outbox)
        // The intents are stored by now: Ctrl-C or SIGTERM end the wait, not the process, so
        // the report says where they stand and that they stay queued.
        let stop = StopOnSignals()
        defer { stop.release() }
        let report: FlushReport
        do throws(OutboxError) {
            report = try await stop.run { () throws(OutboxError) in
                try await outbox.flush(within: wait) {
                    $0.filter { keys.contains($0.key) }.allSatisfy(\.isSettled)
                }
            }
        } catch {
            throw CLIError(outboxError: error)
        }
        let settled = report.keys.filter { keys.contains($0.key) }
        OutboxReport.print(
            FlushReport(keys: settled, balance: report.balance, networkProblem: report.networkProblem), json: json,
            context)
        let code = OutboxReport.exitCode(for: settled)
        if stop.requested, code == .temporaryFailure {
            context.output.error("Interrupted: the wait ended; what was asked for is not lost.")
        }
        OutboxReport.advice(settled, balance: report.balance, context)
        return code
    }
}
