/// Help text in the familiar layout: OVERVIEW, USAGE, OPTIONS, then the exit codes.
enum Help {
    static func tool(_ tool: Tool) -> String {
        var lines = ["OVERVIEW: \(tool.overview)", "", "USAGE: \(tool.name) <command> [options]", "", "COMMANDS:"]
        let width = (tool.commands.map { $0.info.name.count }.max() ?? 0) + 2
        for command in tool.commands {
            lines.append("  " + command.info.name.padding(width) + command.info.overview)
        }
        lines += ["", "  See '\(tool.name) <command> --help' for detailed help.", ""] + exitCodes()
        return lines.joined(separator: "\n")
    }

    static func command(_ info: CommandInfo, tool: String) -> String {
        var lines = ["OVERVIEW: \(info.overview)", "", "USAGE: \(tool) \(info.usage)", "", "OPTIONS:"]
        let labels = info.options.map(label)
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (option, label) in zip(info.options, labels) {
            lines.append("  " + label.padding(width) + option.help)
        }
        if let discussion = info.discussion { lines += ["", discussion] }
        lines += [""] + exitCodes()
        return lines.joined(separator: "\n")
    }

    private static func label(_ option: OptionSpec) -> String {
        let long = "--\(option.name)"
        let names = option.short.map { "-\($0), \(long)" } ?? long
        switch option.kind {
        case .flag: return names
        case .value(let placeholder): return "\(names) <\(placeholder)>"
        case .repeatable(let placeholder): return "\(names) <\(placeholder)> ..."
        }
    }

    private static func exitCodes() -> [String] {
        ["EXIT CODES:"] + ExitCode.allCases.map { "  " + String($0.rawValue).padding(5) + $0.meaning }
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
