import AdamantCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command-line tool made of subcommands: dispatch, help, and the one place where errors
/// become printed lines and exit codes.
public struct Tool: Sendable {
    public let name: String
    public let overview: String
    public let commands: [any Command.Type]
    /// Run when the first argument is an option or a number rather than a command's name
    /// (`adm-fetch 123…` is `adm-fetch fetch 123…`).
    public let defaultCommand: (any Command.Type)?
    /// The man page's EXAMPLES, built only when the page is.
    public let examples: @Sendable () -> [Example]
    /// What the man page says of the environment and files behind the options this package's
    /// other layers declare (the nodes, the home), beyond what AdamantCLI's own options read.
    public let manual: ManualSupplement
    /// Run once the command is done, just before the process exits without its exit handlers:
    /// the stores a command wrote to are checkpointed there.
    public let beforeExit: @Sendable () -> Void

    /// A command line and what it does.
    public struct Example: Sendable {
        public let commandLine: String
        public let effect: String

        public init(_ commandLine: String, _ effect: String) {
            self.commandLine = commandLine
            self.effect = effect
        }
    }

    public init(
        name: String, overview: String, commands: [any Command.Type], defaultCommand: (any Command.Type)? = nil,
        examples: @escaping @Sendable () -> [Example] = { [] }, manual: ManualSupplement = ManualSupplement(),
        beforeExit: @escaping @Sendable () -> Void = {}
    ) {
        self.name = name
        self.overview = overview
        self.commands = commands
        self.defaultCommand = defaultCommand
        self.examples = examples
        self.manual = manual
        self.beforeExit = beforeExit
    }

    /// Runs with the process's arguments and environment, then exits. Called from synchronous
    /// top-level code: an `await` there parks the main thread in `dispatch_main`, whose
    /// `pthread_exit` unwinds the stack through the binary's unwind tables, a cost every
    /// command paid at start. The main thread waits in `pause` instead, and the command exits
    /// from the task.
    public func main() -> Never {
        signal(SIGPIPE, SIG_IGN)  // a closed pipe becomes EPIPE, not a silent death
        ProcessSecrets.forbidCores()
        // Before any other thread exists, the only time environ may be written.
        let passphrase = ProcessSecrets.takePassphraseVariable()
        let environment = Self.environment()
        Task.detached {
            let context = Context(
                environment: environment, passphraseVariable: passphrase, output: Output(), terminal: Terminal())
            let code = await run(Array(CommandLine.arguments.dropFirst()), context)
            // Everything is written by now (every line goes out through write(2), no stdio
            // buffer holds any) and every store committed; the exit handlers left would only
            // free memory the kernel is about to take back (OpenSSL's cleanup, 0.7M
            // instructions of a cold fetch). With none run, curl's threads need not be stopped
            // first either: the kernel ends them, and a request still waiting on a silent node
            // with them.
            beforeExit()
            _exit(code.rawValue)
        }
        while true { pause() }
    }

    /// The process's environment from `environ`, but `ADM_PASSPHRASE`, which never becomes a
    /// string (`ProcessSecrets`); of a name given twice the first counts, as with `getenv`. An
    /// entry without `=` is no variable.
    static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        let secret = ProcessSecrets.variable + "="
        while let pointer = entry.pointee {
            defer { entry += 1 }
            if strncmp(pointer, secret, secret.utf8.count) == 0 { continue }
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
        }
        return variables
    }

    public func run(_ arguments: [String], _ context: Context) async -> ExitCode {
        let code = await dispatch(arguments, context)
        return Self.accountingForWriteFailures(code, context.output)
    }

    private func dispatch(_ arguments: [String], _ context: Context) async -> ExitCode {
        let output = context.output
        guard let first = arguments.first else {
            output.error("Error: missing command (one of: \(commands.map { $0.info.name }.joined(separator: ", ")))")
            output.error("  See '\(name) --help' for the commands.")
            return .usage
        }
        switch first {
        case "--help", "-h":
            output.print(Help.tool(self))
            return .success
        case "help":
            return help(arguments.dropFirst(), output)
        case Self.versionOption:
            return version(arguments.dropFirst(), output)
        default:
            if let code = generate(arguments, context) { return code }
        }
        var arguments = arguments
        if let defaultCommand, !commands.contains(where: { $0.info.name == first }),
            first.hasPrefix("-") || first.first?.isASCIIDigit == true
        {
            arguments.insert(defaultCommand.info.name, at: 0)
        }
        guard let command = command(named: arguments[0], in: arguments, output) else { return .usage }
        do throws(CLIError) {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), options: command.info.options)
            if parsed.flag(CommandInfo.help) { return printHelp(command, output) }
            return try await command.init(parsed).run(context)
        } catch {
            output.error("Error: \(error.message)")
            if error.showsUsage {
                output.error(Help.usage(command.info, tool: name, prefix: "Usage: ").joined(separator: "\n"))
                output.error("  See '\(name) \(command.info.name) --help' for more information.")
            }
            return error.exitCode
        }
    }

    /// `help`, `help <command>`: the same text as `--help` and `<command> --help`.
    private func help(_ names: ArraySlice<String>, _ output: Output) -> ExitCode {
        guard let commandName = names.first else {
            output.print(Help.tool(self))
            return .success
        }
        guard let command = command(named: commandName, in: names, output) else { return .usage }
        if names.count > 1 {
            output.error(
                "Error: unexpected argument \(StrayArguments.quotingFirst(of: names.dropFirst())) (help takes one command)"
            )
            output.error("Usage: \(name) help [<command>]")
            output.error("  See '\(name) --help' for the commands.")
            return .usage
        }
        return printHelp(command, output)
    }

    /// `--version`: `adm-push 0.1.0`, the version the package carries.
    private func version(_ rest: ArraySlice<String>, _ output: Output) -> ExitCode {
        guard rest.isEmpty else {
            output.error(
                "Error: unexpected argument \(StrayArguments.quotingFirst(of: rest)) ('\(Self.versionOption)' takes none)"
            )
            output.error("Usage: \(name) \(Self.versionOption)")
            return .usage
        }
        output.print("\(name) \(Version.current)")
        return .success
    }

    private func printHelp(_ command: any Command.Type, _ output: Output) -> ExitCode {
        output.print(Help.command(command.info, tool: name))
        return .success
    }

    /// The command called `commandName`, the first of `arguments`; else an error naming it.
    private func command(named commandName: String, in arguments: some Collection<String>, _ output: Output) -> (
        any Command.Type
    )? {
        if let command = commands.first(where: { $0.info.name == commandName }) { return command }
        var hint =
            Spelling.nearest(to: commandName, in: commands.map { $0.info.name }).map { " (did you mean '\($0)'?)" }
            ?? ""
        if BIP39.mayHoldAPassphrase(arguments) { hint = "" }
        output.error("Error: unknown command \(StrayArguments.quotingFirst(of: arguments))\(hint)")
        output.error("  See '\(name) --help' for the commands.")
        return nil
    }

    /// Output that could not be written turns success into exit 74, with a line on stderr
    /// unless stderr is what failed or the reader of a pipe simply stopped (EPIPE).
    static func accountingForWriteFailures(_ code: ExitCode, _ output: Output) -> ExitCode {
        guard let failure = output.firstFailure else { return code }
        if failure.stream == .standardOutput, failure.errorNumber != EPIPE {
            output.error("Error: cannot write to standard output: \(String(cString: strerror(failure.errorNumber)))")
        }
        return code == .success ? .outputFailed : code
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
