import Testing

@testable import AdamantCLI
@testable import adm_devnet
@testable import adm_fetch
@testable import adm_push

/// Usage and help are generated from the declared options; this holds for every command of
/// every tool, so no option can go missing from either.
@Suite("declared options")
struct DeclarationTests {
    static let tools = [AdmPush.tool, AdmFetch.tool, AdmDevnet.tool]

    @Test func everyDeclaredOptionIsInTheUsageLineAndTheHelp() {
        for tool in Self.tools {
            for command in tool.commands {
                let info = command.info
                let usage = Help.usage(info, tool: tool.name, prefix: "USAGE: ").joined(separator: "\n")
                let help = Help.command(info, tool: tool.name)
                #expect(help.contains("\n" + usage + "\n"), "\(tool.name) \(info.name)")
                for option in info.options {
                    #expect(
                        help.contains("  --\(option.name)") || help.contains(", --\(option.name)"),
                        "\(tool.name) \(info.name) --\(option.name)")
                    if option.name != CommandInfo.help.spec.name {
                        #expect(usage.contains("[--\(option.name)"), "\(tool.name) \(info.name) --\(option.name)")
                    }
                }
            }
        }
    }

    @Test func namesAreUniqueAndEveryValueHasAName() {
        for tool in Self.tools {
            #expect(Set(tool.commands.map { $0.info.name }).count == tool.commands.count)
            for command in tool.commands {
                let options = command.info.options
                #expect(Set(options.map(\.name)).count == options.count, "\(tool.name) \(command.info.name)")
                #expect(Set(options.compactMap(\.short)).count == options.compactMap(\.short).count)
                for option in options {
                    #expect(option.takesValue == (option.valueName != nil))
                    #expect(!option.help.isEmpty)
                }
            }
        }
    }

    @Test func usageWrapsUnderTheFirstOption() {
        let lines = Help.usage(StartCommand.info, tool: "adm-devnet", prefix: "Usage: ")
        #expect(lines.count > 1 && lines.allSatisfy { $0.count <= Help.width })
        #expect(
            lines.dropFirst().allSatisfy {
                $0.hasPrefix(String(repeating: " ", count: "Usage: adm-devnet start ".count) + "[--")
            })
    }
}
