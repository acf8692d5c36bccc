import AdamantCLI
import AdamantNodes
import Foundation

/// A command line, NUL-separated: dispatch, help, option parsing and node-list resolution,
/// through the same `Tool.run` the commands use. Fields before an empty one are environment
/// entries (only `ADM_NODES` is kept: no path from the input is ever opened). The commands
/// stand in for the real ones and stop once their arguments are understood.
enum ArgumentsFuzz {
    static let tool = Tool(name: "adm-push", overview: "fuzzed", commands: [Nodes.self, Keys.self])
    static let devNull = open("/dev/null", O_RDWR)

    static func run(_ data: [UInt8]) {
        let fields = data.fields(separatedBy: 0).map(\.text)
        let split = fields.firstIndex(of: "")
        let arguments = split.map { Array(fields[($0 + 1)...]) } ?? fields
        let environment = Dictionary(
            (split.map { fields[..<$0] } ?? []).compactMap { entry -> (String, String)? in
                guard entry.hasPrefix("ADM_NODES=") else { return nil }
                return ("ADM_NODES", String(entry.dropFirst("ADM_NODES=".count)))
            },
            uniquingKeysWith: { $1 })
        let context = Context(
            environment: environment, output: Output(standardOutput: devNull, standardError: devNull),
            terminal: Terminal(input: devNull))
        runBlocking { _ = await tool.run(arguments, context) }
    }

    /// `nodes`, run as far as its node list.
    struct Nodes: Command {
        static let info = NodesCommand.info
        let arguments: ParsedArguments

        init(_ arguments: ParsedArguments) throws(CLIError) {
            _ = try NodesCommand(arguments)
            self.arguments = arguments
        }

        func run(_ context: Context) async throws(CLIError) -> ExitCode {
            _ = try NodeOptions.nodeList(arguments, context).endpoints.map(\.url.description)
            return .success
        }
    }

    /// `keys`' options (its command lives in the adm-push executable), never reading a passphrase.
    struct Keys: Command {
        static let info = CommandInfo(
            name: "keys", overview: "fuzzed", usage: "keys [--passphrase-file <path>] [--json]",
            options: [PassphraseInput.option, .flag("json", help: "JSON")])

        init(_ arguments: ParsedArguments) throws(CLIError) {
            _ = arguments.value("passphrase-file")
            _ = arguments.flag("json")
        }

        func run(_ context: Context) async throws(CLIError) -> ExitCode { .success }
    }
}
