import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantPush

/// `adm-push unregister`: commit the wish that a token (or every token) be unregistered.
struct UnregisterCommand: Command {
    static let all = Flag(
        "all",
        help:
            "Every token this account ever registered with the service, found from the chain (works with a fresh --home)."
    )

    static let info = CommandInfo(
        name: "unregister",
        overview: "Unregister a push token (or --all of them) from the notification service.",
        options: [
            RegisterCommand.token, all, RegisterCommand.deviceId, RegisterCommand.noWait, OutboxOptions.deadline,
            OutboxOptions.json,
        ] + OutboxOptions.options,
        discussion: """
            A remove is signed by this account, the one that registered the token. With --all the
            chain's history alone says which tokens to remove, so a registration orphaned by a
            reinstall can still be ended. adamant-ns deletes a whole device, so there a remove is
            sent only while the token is still the device's: once a newer one replaced it, nothing
            is sent. Exit codes as for register.
            """ + "\n" + OutboxOptions.help)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else { throw .usage("unregister takes no arguments") }
        switch (arguments.value(RegisterCommand.token), arguments.flag(Self.all)) {
        case (nil, false): throw .usage("give --token TOKEN or --all")
        case (_?, true): throw .usage("give either --token or --all, not both")
        case (nil, true) where arguments.value(RegisterCommand.deviceId) != nil:
            throw .usage("--device-id goes with --token; --all finds every device on the chain")
        case (let token?, false):
            guard
                (try? PushSignal.validate(token: token, provider: .apns)) != nil
                    || (try? PushSignal.validate(token: token, provider: .fcm)) != nil
            else {
                throw .invalidInput(
                    "invalid --token: neither an APNs token (lowercase hex) nor an FCM registration token")
            }
        case (nil, true): break
        }
        _ = try OutboxOptions.service(arguments)
        _ = try OutboxOptions.deadline(arguments)
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let outbox = try await OutboxOptions.openForPassphrase(arguments, context)
        let intents: [Intent]
        do {
            if let token = arguments.value(RegisterCommand.token) {
                intents = [
                    try await outbox.unregister(token: token, deviceId: arguments.value(RegisterCommand.deviceId))
                ]
            } else {
                let line = ProgressLine.onTerminal(context)
                defer { line?.clear() }
                var progress: (@Sendable (Int) -> Void)?
                if let line {
                    progress = { read in line.update("reading this account's signals to the service: \(read) read") }
                }
                intents = try await outbox.unregisterAll(progress: progress)
            }
        } catch .tokenReplaced {
            return replaced(arguments.value(RegisterCommand.token) ?? "", arguments: arguments, context)
        } catch {
            throw CLIError(outboxError: error)
        }
        if intents.isEmpty {
            if arguments.flag(OutboxOptions.json) {
                context.output.printJSON(OutboxReport.ReportJSON(tokens: [], balance: nil, networkProblem: nil))
            } else {
                context.output.print(
                    "nothing to unregister: the chain shows no token of this account registered with the service")
            }
            return .success
        }
        return try await OutboxCommand.finish(intents, outbox: outbox, arguments: arguments, context)
    }

    /// adamant-ns: the device holds a newer token, which a remove would delete with it.
    private func replaced(_ token: String, arguments: ParsedArguments, _ context: Context) -> ExitCode {
        if arguments.flag(OutboxOptions.json) {
            context.output.printJSON(OutboxReport.ReportJSON(tokens: [], balance: nil, networkProblem: nil))
        } else {
            context.output.print(
                "nothing sent: \(OutboxReport.hint(token)) is no longer this device's token (a newer one replaced it), and adamant-ns would delete the device with the newer one"
            )
        }
        return .success
    }
}
