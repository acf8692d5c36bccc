/// Help text in the familiar layout (OVERVIEW, USAGE, OPTIONS, then the exit codes), generated
/// from the declared options so usage and help cannot drift from what is parsed.
enum Help {
    /// Usage lines wrap here.
    static let width = 80

    static func tool(_ tool: Tool) -> String {
        var lines = ["OVERVIEW: \(tool.overview)", "", "USAGE: \(tool.name) <command> [options]"]
        if let command = tool.defaultCommand {
            lines.append(
                "       \(tool.name) <\(command.info.name) arguments> [options]   (the '\(command.info.name)' command, named or not)"
            )
        }
        lines += ["", "COMMANDS:"]
        let width = (tool.commands.map { $0.info.name.count }.max() ?? 0) + 2
        for command in tool.commands {
            lines.append("  " + command.info.name.padding(width) + command.info.overview)
        }
        lines += [
            "", "  See '\(tool.name) help <command>' or '\(tool.name) <command> --help' for detailed help.",
            "  '\(tool.name) \(Tool.completionOption) bash|zsh|fish' prints a shell completion script,",
            "  '\(tool.name) \(Tool.manualOption)' the man page,",
            "  '\(tool.name) \(Tool.versionOption)' its version.",
            "",
        ]
        return (lines + exitCodes()).joined(separator: "\n")
    }

    static func command(_ info: CommandInfo, tool: String) -> String {
        var lines = ["OVERVIEW: \(info.overview)", ""] + usage(info, tool: tool, prefix: "USAGE: ") + ["", "OPTIONS:"]
        let labels = info.options.map(label)
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (option, label) in zip(info.options, labels) {
            lines.append("  " + label.padding(width) + option.help)
        }
        if let discussion = info.discussion { lines += ["", discussion] }
        return (lines + [""] + exitCodes()).joined(separator: "\n")
    }

    /// `prefix` + `tool command [--option <value>] …`, every option but `--help`, wrapped to
    /// `width` with continuation lines aligned under the first option.
    static func usage(_ info: CommandInfo, tool: String, prefix: String) -> [String] {
        let head = prefix + tool + " " + info.name
        let indent = String(repeating: " ", count: head.count + 1)
        var lines: [String] = []
        var line = head
        for option in info.options where option.name != CommandInfo.help.spec.name {
            let part = synopsis(option)
            if line != head, line.count + 1 + part.count > width {
                lines.append(line)
                line = indent + part
            } else {
                line += " " + part
            }
        }
        return lines + [line]
    }

    /// `[--json]`, `[--nethash <hex>]`, `[--node <url> ...]`.
    private static func synopsis(_ option: OptionSpec) -> String {
        var text = "--" + option.name
        if let value = placeholder(option) { text += " " + value }
        if option.kind == .repeatable { text += " ..." }
        return "[" + text + "]"
    }

    /// `-h, --help`, `--nethash <hex>`, `--node <url> ...`.
    private static func label(_ option: OptionSpec) -> String {
        var text = (option.short.map { "-\($0), " } ?? "") + "--" + option.name
        if let value = placeholder(option) { text += " " + value }
        if option.kind == .repeatable { text += " ..." }
        return text
    }

    /// `<url>`, or the accepted values when there is a fixed list: `<csharp|ordered>`.
    private static func placeholder(_ option: OptionSpec) -> String? {
        guard option.takesValue else { return nil }
        return "<" + (option.allowedValues?.joined(separator: "|") ?? option.valueName ?? "value") + ">"
    }

    private static func exitCodes() -> [String] {
        ["EXIT CODES:"] + ExitCode.allCases.map { "  " + String($0.rawValue).padding(5) + $0.meaning }
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
