import Foundation
import Testing

/// `help`, `help <command>` and `<command> --help` for every command of the three tools, run
/// as real processes.
@Suite("help and usage", .timeLimit(.minutes(1)))
struct HelpTests {
    static let tools = ["adm-push", "adm-fetch", "adm-devnet"]

    /// The names listed under COMMANDS: in `tool --help`.
    static func commands(of tool: String) async throws -> [String] {
        let help = try await run(tool, ["--help"])
        #expect(help.status == 0)
        return section("COMMANDS:", of: help.stdout).compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The lines after `title` up to the next blank line.
    static func section(_ title: String, of text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(title) }) else { return [] }
        let rest = lines[start...]
        return Array(rest.prefix { !$0.isEmpty }.dropFirst(title == "USAGE:" ? 0 : 1))
    }

    @Test(arguments: tools)
    func helpCommandAndHelpOptionPrintTheSameText(_ tool: String) async throws {
        let commands = try await Self.commands(of: tool)
        #expect(!commands.isEmpty)
        for command in commands {
            let viaHelp = try await run(tool, ["help", command])
            let viaOption = try await run(tool, [command, "--help"])
            let viaShort = try await run(tool, [command, "-h"])
            #expect(viaHelp.status == 0 && viaOption.status == 0 && viaShort.status == 0)
            #expect(viaHelp.stdout == viaOption.stdout && viaHelp.stdout == viaShort.stdout, "\(tool) \(command)")
            #expect(viaHelp.stdout.contains("\nUSAGE: \(tool) \(command)"), "\(viaHelp.stdout)")
            #expect(viaHelp.stderr.isEmpty)
        }
    }

    /// Every option help lists is in the usage line too (they used to be written by hand and
    /// had drifted apart).
    @Test(arguments: tools)
    func everyOptionIsInTheUsageLine(_ tool: String) async throws {
        for command in try await Self.commands(of: tool) {
            let help = try await run(tool, ["help", command]).stdout
            let usage = Self.section("USAGE:", of: help).joined(separator: " ")
            let options = Self.section("OPTIONS:", of: help).compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init)
            }
            #expect(options.contains("--help"), "\(tool) \(command)")
            for option in options where option != "--help" {
                #expect(usage.contains("[\(option)"), "\(tool) \(command): \(option) is missing from \(usage)")
            }
        }
    }

    @Test func usageLinesAreGeneratedFromTheOptions() async throws {
        let keys = try await run("adm-push", ["help", "keys"]).stdout
        #expect(keys.contains("\nUSAGE: adm-push keys [--passphrase-file <path>] [--account <U…>] [--json]\n"))
        let nodes = try await run("adm-fetch", ["help", "nodes"]).stdout
        #expect(
            nodes.contains(
                "\nUSAGE: adm-fetch nodes [--node <url> ...] [--nethash <hex>] [--proxy <url>]\n                       [--json] [--home <dir>]\n"
            ))
        let start = try await run("adm-devnet", ["help", "start"]).stdout
        #expect(
            start.contains(
                """

                USAGE: adm-devnet start [--nodes <n>] [--block-time <seconds>] [--fund <n>]
                                        [--account <passphrase=adm> ...]
                                        [--node-version <x.y.z>] [--ans-mode <csharp|ordered>]
                                        [--ans-poll <seconds>] [--service <ans|ns|both>]
                                        [--ns-mode <replay|ordered>] [--ns-poll <seconds>]
                                        [--connection-timeout <seconds>] [--max-connections <n>]
                                        [--fault <node:kind[:arg][@/path]> ...] [--quiet]

                """), "\(start)")
    }

    @Test func helpTakesOneKnownCommand() async throws {
        let extra = try await run("adm-push", ["help", "keys", "extra"])
        #expect(extra.status == 64 && extra.stdout.isEmpty)
        #expect(
            extra.stderr == """
                Error: unexpected argument 'extra' (help takes one command)
                Usage: adm-push help [<command>]
                  See 'adm-push --help' for the commands.

                """)

        let unknown = try await run("adm-push", ["help", "kyes"])
        #expect(unknown.status == 64 && unknown.stdout.isEmpty)
        #expect(
            unknown.stderr
                == "Error: unknown command 'kyes' (did you mean 'keys'?)\n  See 'adm-push --help' for the commands.\n")

        let tool = try await run("adm-push", ["help"])
        let toolOption = try await run("adm-push", ["--help"])
        #expect(tool.status == 0 && tool.stdout == toolOption.stdout)
    }

    @Test func theExitCodesAreListed() async throws {
        let help = try await run("adm-push", ["help", "keys"]).stdout
        #expect(
            Self.section("EXIT CODES:", of: help) == [
                "  0    done",
                "  1    rejected for good (the reason is printed)",
                "  64   usage error or invalid input",
                "  65   data from the network could not be verified",
                "  69   no usable node, or not found before the deadline",
                "  74   output or a file of the home could not be written (a closed pipe, a full disk, a lock held too long)",
                "  75   not done yet: durably queued (will retry), or the keyring is locked",
            ])
    }
}
