/// A fish completion file: one `complete` line per command and option, each guarded by a
/// helper that says which command the line is in (fish evaluates the guard at every Tab).
struct FishCompletion: CompletionScript {
    let tool: Tool
    /// `__adm_push_using register`: true when the line is in that command.
    let using: String

    init(_ tool: Tool) {
        self.tool = tool
        using = "__" + tool.shellIdentifier + "_using"
    }

    func script() -> String {
        let atFirstWord = "test (count (commandline -opc)) -eq 1"
        var lines = [
            header(.fish),
            "",
            "function \(using) --description 'Whether the command line is in the given \(tool.name) command'",
            "    set -l words (commandline -opc)",
            "    if not set -q words[2]",
            // Before any word, the default command's options are offered with the commands.
            "        test \(Self.quoted(tool.defaultCommand?.info.name ?? "")) = \"$argv[1]\"",
            "        return",
            "    end",
            "    if contains -- $words[2] \(commandNames.joined(separator: " "))",
            "        test $words[2] = \"$argv[1]\"",
        ]
        if let fallback = tool.defaultCommand {
            // fish's wildcards have no character classes; `string match` has.
            lines += [
                "    else if string match -qr '^[-0-9]' -- $words[2]",
                "        test \(fallback.info.name) = \"$argv[1]\"  # the default command, as \(tool.name) reads it",
            ]
        }
        lines += ["    else", "        return 1", "    end", "end", "", "complete -c \(tool.name) -f"]

        for command in tool.commands {
            lines.append(complete(guard: atFirstWord, "-a \(command.info.name)", help: command.info.overview))
        }
        lines.append(complete(guard: atFirstWord, "-a help", help: "Show help for a command."))
        for option in tool.toolOptions where option.name != "-h" {
            let spelling = option.name == "--help" ? "-s h -l help" : "-l " + option.name.dropFirst(2)
            lines.append(complete(guard: atFirstWord, spelling, help: option.help))
        }
        let afterWord = { (word: String) in
            "test (count (commandline -opc)) -eq 2; and test (commandline -opc)[2] = \(word)"
        }
        lines.append(
            complete(
                guard: afterWord(Tool.completionOption),
                "-a " + Self.quoted(Tool.Shell.allCases.map(\.rawValue).joined(separator: " ")), help: nil))
        lines.append(
            complete(guard: afterWord("help"), "-a " + Self.quoted(commandNames.joined(separator: " ")), help: nil))

        for command in tool.commands {
            lines.append("")
            for option in command.info.options {
                lines.append(complete(guard: "\(using) \(command.info.name)", spelling(option), help: option.help))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `-s h -l help`, `-l provider -x -a 'apns …'`, `-l payload -r -F`.
    private func spelling(_ option: OptionSpec) -> String {
        var text = (option.short.map { "-s \($0) " } ?? "") + "-l " + option.name
        guard option.takesValue else { return text }
        if let values = option.allowedValues {
            text += " -x -a " + Self.quoted(values.joined(separator: " "))
        } else {
            switch option.valueKind {
            case .file?: text += " -r -F"
            case .directory?: text += " -x -a '(__fish_complete_directories (commandline -ct))'"
            case nil: text += " -x"  // typed by hand
            }
        }
        return text
    }

    private func complete(guard condition: String, _ what: String, help: String?) -> String {
        "complete -c \(tool.name) -n \(Self.quoted(condition)) \(what)" + (help.map { " -d " + Self.quoted($0) } ?? "")
    }

    /// Fish's single quotes: only a backslash and a quote are escaped.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
