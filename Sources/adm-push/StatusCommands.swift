import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantFetch
import AdamantNodes
import AdamantPush

/// `adm-push status`: per token, the newest intent, the chain's view and what is pending.
struct StatusCommand: Command {
    static let info = CommandInfo(
        name: "status",
        overview: "Show each token's newest intent, its state on chain, and what is in flight.",
        options: [RegisterCommand.token, OutboxOptions.json] + OutboxOptions.options,
        discussion:
            "Reads the chain and records what it shows (an intent it already satisfies is applied); signs and sends nothing. Exits 69 when no node can be read.\n"
            + OutboxOptions.help)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        self.arguments = try checkedOutboxArguments(arguments, of: "status")
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let outbox = try await OutboxOptions.openForPassphrase(arguments, context)
        if let warning = await AccountPassphrase.plainFileWarning(arguments, context) {
            context.output.error("warning: " + warning)
        }
        let report: FlushReport
        do { report = try await outbox.status() } catch { throw CLIError(outboxError: error) }
        let evidence = await PushEvidenceReport.assess(
            outbox, account: outbox.account, refresh: false, arguments, context)
        let token = arguments.value(RegisterCommand.token)
        let keys = report.keys.filter { token == nil || $0.token == token }
        OutboxReport.print(
            FlushReport(keys: keys, balance: report.balance, networkProblem: report.networkProblem),
            json: arguments.flag(OutboxOptions.json),
            evidence: evidence?.description, context)
        if keys.isEmpty && !arguments.flag(OutboxOptions.json) {
            context.output.print("no intents kept in this home for this account")
        }
        PushEvidenceReport.print(evidence, context)
        return report.networkProblem != nil && keys.allSatisfy({ $0.chain == nil }) && !keys.isEmpty
            ? .unavailable : .success
    }
}

/// `adm-push queue`: every intent kept, with its attempts. No network.
struct QueueCommand: Command {
    static let info = CommandInfo(
        name: "queue",
        overview: "List every intent kept in this home for the account, oldest first, with their attempts.",
        options: [OutboxOptions.json] + OutboxOptions.options,
        discussion: "Reads only the local store.\n" + OutboxOptions.help)

    struct IntentJSON: Encodable {
        let token: String
        let sequence: Int64
        let action: String
        let provider: String
        let state: String
        let attempts: [AttemptJSON]
    }

    struct AttemptJSON: Encodable {
        let id: String
        let action: String
        let node: String
        let outcome: String
    }

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        self.arguments = try checkedOutboxArguments(arguments, of: "queue")
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let outbox = try await OutboxOptions.openForPassphrase(arguments, context, network: false)
        let groups: [[Intent]]
        do { groups = try await outbox.queue() } catch { throw CLIError(outboxError: error) }
        let intents = groups.joined().sorted { $0.createdAt < $1.createdAt }
        if arguments.flag(OutboxOptions.json) {
            context.output.printJSON([
                "intents": intents.map { intent in
                    IntentJSON(
                        token: OutboxReport.hint(intent.signal.token), sequence: intent.sequence,
                        action: intent.action.rawValue,
                        provider: intent.signal.provider.rawValue, state: OutboxReport.state(intent.state),
                        attempts: intent.attempts.map {
                            AttemptJSON(
                                id: $0.id.description, action: $0.action.rawValue, node: $0.node,
                                outcome: "\($0.outcome)")
                        })
                }
            ])
            return .success
        }
        for intent in intents {
            context.output.print(
                "\(OutboxReport.hint(intent.signal.token)) #\(intent.sequence) \(intent.action.rawValue) (\(intent.signal.provider.rawValue)): \(OutboxReport.state(intent.state))"
            )
            for attempt in intent.attempts {
                context.output.print(
                    "    \(attempt.action.rawValue) \(attempt.id) via \(attempt.node.isEmpty ? "?" : attempt.node): \(OutboxReport.outcome(attempt.outcome))"
                )
            }
        }
        if intents.isEmpty { context.output.print("the outbox is empty for this account") }
        return .success
    }
}

/// `adm-push flush`: finish what is pending, once or in a loop.
struct FlushCommand: Command {
    static let loop = Flag("loop", help: "Keep going: a pass every --interval seconds until interrupted.")
    static let interval = SingleOption(
        "interval", valueName: "seconds", help: "Between passes with --loop (default 60).")

    static let info = CommandInfo(
        name: "flush",
        overview: "Send what the newest intents still need, and wait for the chain.",
        options: [loop, interval, OutboxOptions.deadline, OutboxOptions.json, LogOptions.verbose]
            + OutboxOptions.options,
        discussion: """
            Exit codes as for register, over every token. With --loop, each pass is also logged,
            and SIGINT, SIGTERM or SIGHUP stop it cleanly (exit 0, as they stop adm-fetch watch): what is
            still pending stays queued.
            """ + "\n" + LogOptions.help + "\n" + OutboxOptions.help)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        self.arguments = try checkedOutboxArguments(arguments, of: "flush")
        _ = try OutboxOptions.deadline(arguments)
        _ = try Self.interval(arguments)
    }

    /// `--interval`, plain seconds (as `--deadline` takes them), 60 when not given.
    static func interval(_ arguments: ParsedArguments) throws(CLIError) -> Duration {
        guard let text = arguments.value(interval) else { return .seconds(60) }
        guard let duration = SingleOption.seconds(text, in: 1...86_400) else {
            throw .usage("--interval takes 1 to 86400 seconds, got \(text.quoted)")
        }
        return duration
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let logger = try LogOptions.logger(arguments, context)
        // Run by a timer, nobody is there to answer an unlock prompt every few minutes.
        let outbox = try await OutboxOptions.openForPassphrase(
            arguments, context, log: Demoted(logger, as: "outbox"),
            whenLocked: context.terminal.isInteractive ? .prompt : .fail)
        let wait = try OutboxOptions.wait(arguments, for: outbox)
        let json = arguments.flag(OutboxOptions.json)
        guard arguments.flag(Self.loop) else {
            let report: FlushReport
            do { report = try await outbox.flush(within: wait) } catch { throw CLIError(outboxError: error) }
            OutboxReport.print(report, json: json, context)
            OutboxReport.advice(report.keys, balance: report.balance, context)
            return OutboxReport.exitCode(for: report.keys)
        }
        let interval = try Self.interval(arguments)
        let milliseconds = Int64(interval / .milliseconds(1))
        let stop = StopOnSignals()
        defer { stop.release() }
        try await stop.run { () throws(CLIError) in
            var pass = 0
            while !Task.isCancelled {
                pass += 1
                let report: FlushReport
                do throws(OutboxError) { report = try await outbox.flush(within: wait) } catch {
                    throw CLIError(outboxError: error)
                }
                // A pass the stop cut short is not reported: its nodes said "cancelled", its
                // balance is unknown.
                if Task.isCancelled { break }
                // In a loop the log says what the nodes did (a warning), not a bare line beside it.
                OutboxReport.print(
                    json ? report : FlushReport(keys: report.keys, balance: report.balance), json: json, context)
                FlushLog.log(report, pass: pass, logger)
                logger.log(
                    .debug,
                    "flush: next pass at \(Logger.timestamp(Logger.now() + milliseconds)) (in \(milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)") s)"
                )
                try? await Task.sleep(for: interval)
            }
        }
        logger.log(.info, "flush: stopped; what is still pending stays queued in the home")
        return .success
    }
}

/// `adm-push repair`: make the outbox hold what the chain says was last wanted, and send it.
struct RepairCommand: Command {
    static let info = CommandInfo(
        name: "repair",
        overview: "Rebuild intents from the chain (even with a lost or fresh home) and send what they need.",
        options: [OutboxOptions.deadline, OutboxOptions.json] + OutboxOptions.options,
        discussion: """
            For every token with no intent here, the last signal on chain becomes the intent; an add
            at risk is sent once more after the gap; failed intents are tried again. When the pushes
            adm-fetch recorded here show that the service lost what the chain says (pushes stopped
            while registered, or kept coming after a remove), that signal is sent once more.
            """ + "\n" + OutboxOptions.help)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        self.arguments = try checkedOutboxArguments(arguments, of: "repair")
        _ = try OutboxOptions.deadline(arguments)
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let outbox = try await OutboxOptions.openForPassphrase(arguments, context)
        let evidence = await PushEvidenceReport.assess(outbox, account: outbox.account, arguments, context)
        if let evidence {
            context.output.error("Evidence: \(evidence); sending the last signal of each affected token again")
        }
        do { _ = try await outbox.repair(resend: evidence?.tokensToResend ?? []) } catch {
            throw CLIError(outboxError: error)
        }
        let wait = try OutboxOptions.wait(arguments, for: outbox)
        let report: FlushReport
        do { report = try await outbox.flush(within: wait) } catch { throw CLIError(outboxError: error) }
        OutboxReport.print(report, json: arguments.flag(OutboxOptions.json), context)
        OutboxReport.advice(report.keys, balance: report.balance, context)
        return OutboxReport.exitCode(for: report.keys)
    }
}

/// What each command here checks before it asks for the passphrase: it takes no positional
/// argument, and the push service named is valid.
private func checkedOutboxArguments(_ arguments: ParsedArguments, of command: String) throws(CLIError)
    -> ParsedArguments
{
    guard arguments.positional.isEmpty else { throw .usage("\(command) takes no arguments") }
    _ = try OutboxOptions.service(arguments)
    return arguments
}
