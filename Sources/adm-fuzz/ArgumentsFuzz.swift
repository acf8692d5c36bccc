import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantNodes
import Foundation

/// A command line, NUL-separated: dispatch, help, option parsing and node-list resolution,
/// through the same `Tool.run` the commands use. Fields before an empty one are environment
/// entries (only `ADM_NODES` is kept: no path from the input is ever opened). The commands
/// stand in for the real ones and stop once their arguments are understood.
///
/// What the tool writes is read back: a value holding two or more BIP39 words (an argument,
/// an option's `=value`, an entry of `ADM_NODES`), a passphrase typed in the wrong place, is
/// never repeated in any message.
enum ArgumentsFuzz {
    static let tool = Tool(name: "adm-push", overview: "fuzzed", commands: [Nodes.self, Keys.self])
    static let output = CapturedOutput()
    static let bip39Words = Set(BIP39.wordList)

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
        let context = Context(environment: environment, output: output.sink, terminal: Terminal(input: output.devNull))
        runBlocking { _ = await tool.run(arguments, context) }

        let written = output.drain()
        // In any form a message might print it, quoted or not (`quoted` itself withholds it).
        let values =
            arguments.compactMap(userValue) + environment.values.flatMap { $0.split(separator: ",").map(String.init) }
        for value in values where bip39WordCount(value) >= 2 {
            let shown = value.escapingControlCharacters
            invariant(!written.contains(shown), "a passphrase-like value is repeated: \(shown) in \(written)")
        }
    }

    static func bip39WordCount(_ text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count { bip39Words.contains($0.lowercased()) }
    }

    /// An argument as the user's own text: an option's name is the tool's, its `=value` is not.
    static func userValue(_ argument: String) -> String? {
        guard argument.hasPrefix("-") else { return argument }
        return argument.hasPrefix("--")
            ? argument.firstIndex(of: "=").map { String(argument[argument.index(after: $0)...]) } : nil
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

    /// `keys`' options (its command lives in the adm-push executable). A passphrase is read only
    /// from a relative path without a slash, which names nothing in the directory fuzzing runs
    /// in, so the input reaches the messages of a file that cannot be read.
    struct Keys: Command {
        static let json = Flag("json", help: "JSON")
        static let info = CommandInfo(name: "keys", overview: "fuzzed", options: [PassphraseInput.option, json])
        let arguments: ParsedArguments

        init(_ arguments: ParsedArguments) throws(CLIError) {
            _ = arguments.flag(Self.json)
            self.arguments = arguments
        }

        func run(_ context: Context) async throws(CLIError) -> ExitCode {
            guard let path = arguments.value(PassphraseInput.option), !path.contains("/"), !path.hasPrefix(".") else {
                return .success
            }
            _ = try PassphraseInput.passphrase(arguments, context)
            return .success
        }
    }
}

/// Standard output and error into one pipe, read back after each run. The pipe is made large
/// enough for anything one input can print, so a write never waits for the reader.
final class CapturedOutput: Sendable {
    let devNull = open("/dev/null", O_RDWR)
    private let reader: Int32
    private let writer: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("no pipe: \(errno)") }
        (reader, writer) = (ends[0], ends[1])
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ, which Glibc's module does not export
        _ = fcntl(writer, setPipeSize, 1 << 20)
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
    }

    var sink: Output { Output(standardOutput: writer, standardError: writer) }

    func drain() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
