/// A zsh completion function (`#compdef`, for a directory on `$fpath`): `_describe` for the
/// commands, `_arguments` for each command's options with their help.
struct ZshCompletion: CompletionScript {
    let tool: Tool

    init(_ tool: Tool) { self.tool = tool }

    func script() -> String {
        var lines = [
            "#compdef \(tool.name)",
            header(.zsh),
            "",
        ]
        for command in tool.commands { lines += arguments(command.info) }
        lines += [
            "\(function)() {",
            "    local -a commands",
            "    commands=(",
        ]
        for command in tool.commands {
            lines.append("        " + (command.info.name + ":" + command.info.overview).shellQuoted)
        }
        lines += [
            "        " + "help:Show help for a command.".shellQuoted,
            "    )",
            "    if (( CURRENT == 2 )); then",
            "        if [[ $PREFIX == -* ]]; then",
            "            compadd -- \(tool.toolOptions.map(\.name).joined(separator: " "))",
        ]
        if let fallback = tool.defaultCommand { lines.append("            \(function)_\(fallback.info.name)") }
        lines += [
            "        else",
            "            _describe -t commands \((tool.name + " command").shellQuoted) commands",
            "        fi",
            "        return",
            "    fi",
            "    case $words[2] in",
            "        \(Tool.completionOption)) (( CURRENT == 3 )) && compadd -- \(Tool.Shell.allCases.map(\.rawValue).joined(separator: " ")) ;;",
            "        help) (( CURRENT == 3 )) && compadd -- \(commandNames.joined(separator: " ")) ;;",
            "        \(commandNames.joined(separator: "|")))",
            "            local command=$words[2]",
            "            shift words",
            "            (( CURRENT-- ))",
            "            \(function)_$command",
            "            ;;",
        ]
        if let fallback = tool.defaultCommand {
            lines.append(
                "        -*|[0-9]*) \(function)_\(fallback.info.name) ;;  # the default command, as \(tool.name) reads it"
            )
        }
        lines += ["    esac", "}", "", "\(function) \"$@\""]
        return lines.joined(separator: "\n")
    }

    /// `_adm_push_register() { _arguments … }`: a spec per option.
    private func arguments(_ info: CommandInfo) -> [String] {
        var lines = ["\(function)_\(info.name)() {", "    _arguments -s -S \\"]
        for option in info.options {
            let help = "[" + Self.escaped(option.help, also: "[]") + "]"
            var value = ""
            if option.takesValue {
                let message = Self.escaped(option.valueName ?? "value", also: ":")
                let action =
                    if let values = option.allowedValues {
                        "(" + values.joined(separator: " ") + ")"
                    } else {
                        switch option.valueKind {
                        case .file?: "_files"
                        case .directory?: "_directories"
                        case nil: " "  // a message only: typed by hand
                        }
                    }
                value = ":" + message + ":" + action
            }
            // `=`: the value may follow in the same word after '=' or as the next word.
            let spelling = "--" + option.name + (option.takesValue ? "=" : "")
            let spec =
                if let short = option.short {
                    "'(-\(short) --\(option.name))'{-\(short),\(spelling)}" + (help + value).shellQuoted
                } else {
                    ((option.kind == .repeatable ? "*" : "") + spelling + help + value).shellQuoted
                }
            lines.append("        \(spec) \\")
        }
        lines += ["        '*: :'", "}", ""]
        return lines
    }

    /// `_arguments` reads backslashes, and the given characters, as its own unless escaped.
    private static func escaped(_ text: String, also special: String) -> String {
        var result = ""
        for character in text {
            if character == "\\" || special.contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
