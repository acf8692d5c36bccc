/// A bash completion script: one function, registered with `complete -F`. It reads the line
/// as `Tool` does: the command is the first word (or the default command when that word is an
/// option or a number), and an option's value follows it or an `=`.
struct BashCompletion: CompletionScript {
    let tool: Tool

    init(_ tool: Tool) { self.tool = tool }

    func script() -> String {
        var lines = [
            header(.bash),
            "",
            "\(function)_words() { mapfile -t COMPREPLY < <(compgen -W \"$1\" -- \"$cur\"); }",
            "\(function)_files() { compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\"); }",
            "\(function)_directories() { compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- \"$cur\"); }",
            "",
            "\(function)() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} option=",
            "    COMPREPLY=()",
            "    # bash splits --option=value at the '=' (COMP_WORDBREAKS)",
            "    if [[ $cur == = ]]; then option=$prev cur=",
            "    elif [[ $prev == = ]] && (( COMP_CWORD > 2 )); then option=${COMP_WORDS[COMP_CWORD-2]}",
            "    else option=$prev",
            "    fi",
            "    local command=${COMP_WORDS[1]}",
            "    if (( COMP_CWORD == 1 )); then",
            "        if [[ $cur == -* ]]; then",
            "            \(function)_words \(wordList(tool.toolOptions.map(\.name) + (tool.defaultCommand.map { optionNames($0.info) } ?? [])))",
            "        else",
            "            \(function)_words \(wordList(commandNames + ["help"]))",
            "        fi",
            "        return",
            "    fi",
            "    case $command in",
            "        \(Tool.completionOption)) (( COMP_CWORD == 2 )) && \(function)_words \(wordList(Tool.Shell.allCases.map(\.rawValue))); return ;;",
            "        help) (( COMP_CWORD == 2 )) && \(function)_words \(wordList(commandNames)); return ;;",
            "        \(commandNames.joined(separator: "|"))) ;;",
        ]
        if let fallback = tool.defaultCommand {
            lines.append(
                "        -*|[0-9]*) command=\(fallback.info.name) ;;  # the default command, as \(tool.name) reads it")
        }
        lines += ["        *) return ;;", "    esac", "    case $command in"]
        for command in tool.commands { lines += cases(command.info) }
        lines += ["    esac", "}", "", "complete -F \(function) \(tool.name)"]
        return lines.joined(separator: "\n")
    }

    /// One command: the value of the option before the cursor, else the command's options.
    private func cases(_ info: CommandInfo) -> [String] {
        var lines = ["        \(info.name))", "            case $option in"]
        // Options completed alike share a pattern: `--token|--deadline) return ;;`.
        var actions: [(action: String, names: [String])] = []
        for option in info.options where option.takesValue {
            let action =
                if let values = option.allowedValues {
                    "\(function)_words \(wordList(values)); "
                } else {
                    switch option.valueKind {
                    case .file?: "\(function)_files; "
                    case .directory?: "\(function)_directories; "
                    case nil: ""  // typed by hand: offer nothing rather than options
                    }
                }
            if let index = actions.firstIndex(where: { $0.action == action }) {
                actions[index].names.append("--" + option.name)
            } else {
                actions.append((action, ["--" + option.name]))
            }
        }
        for (action, names) in actions {
            lines.append("                \(names.joined(separator: "|"))) \(action)return ;;")
        }
        lines += [
            "            esac",
            "            \(function)_words \(wordList(optionNames(info)))",
            "            ;;",
        ]
        return lines
    }

    private func optionNames(_ info: CommandInfo) -> [String] {
        info.options.flatMap { option in ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? []) }
    }

    private func wordList(_ words: [String]) -> String { words.joined(separator: " ").shellQuoted }
}
