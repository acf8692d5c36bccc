import AdamantCore
import AdamantNodes
import Foundation

/// A command-line tool made of subcommands: dispatch, help, and the one place where errors
/// become printed lines and exit codes.
public struct Tool: Sendable {
    public let name: String
    public let overview: String
    public let commands: [any Command.Type]

    public init(name: String, overview: String, commands: [any Command.Type]) {
        self.name = name
        self.overview = overview
        self.commands = commands
    }

    /// Runs with the process's arguments and environment, then exits.
    public func main() async -> Never {
        signal(SIGPIPE, SIG_IGN)  // a closed pipe becomes EPIPE, not a silent death
        let context = Context(environment: ProcessInfo.processInfo.environment, output: Output(), terminal: Terminal())
        let code = await run(Array(CommandLine.arguments.dropFirst()), context)
        CurlTransport.shutdown()  // curl's threads must be gone before exit() tears OpenSSL down
        exit(code.rawValue)
    }

    public func run(_ arguments: [String], _ context: Context) async -> ExitCode {
        let output = context.output
        guard let first = arguments.first else {
            output.error("Error: missing command (one of: \(commands.map { $0.info.name }.joined(separator: ", ")))")
            output.error("  See '\(name) --help' for the commands.")
            return .usage
        }
        if first == "--help" || first == "-h" {
            output.print(Help.tool(self))
            return .success
        }
        if first == "help" {
            guard let name = arguments.dropFirst().first else { output.print(Help.tool(self)); return .success }
            guard let command = command(named: name, output) else { return .usage }
            output.print(Help.command(command.info, tool: name))
            return .success
        }
        guard let command = command(named: first, output) else { return .usage }
        let rest = Array(arguments.dropFirst())
        do throws(CLIError) {
            let parsed = try ParsedArguments(rest, options: command.info.options)
            if parsed.flag("help") {
                output.print(Help.command(command.info, tool: name))
                return .success
            }
            return try await command.init(parsed).run(context)
        } catch {
            output.error("Error: \(error.message)")
            if error.isUsage {
                output.error("Usage: \(name) \(command.info.usage)")
                output.error("  See '\(name) \(command.info.name) --help' for more information.")
            }
            return error.exitCode
        }
    }

    private func command(named name: String, _ output: Output) -> (any Command.Type)? {
        if let command = commands.first(where: { $0.info.name == name }) { return command }
        let hint = Spelling.nearest(to: name, in: commands.map { $0.info.name }).map { " (did you mean '\($0)'?)" } ?? ""
        output.error("Error: unknown command '\(name)'\(hint)")
        output.error("  See '\(self.name) --help' for the commands.")
        return nil
    }
}
