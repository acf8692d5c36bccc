import AdamantCore

/// `--generate-completion-script SHELL` and `--generate-manual`: the declarations turned into
/// a shell's completion and a man page. Both are built only when asked, so a command's start
/// pays nothing for them.
extension Tool {
    static let completionOption = "--generate-completion-script"

    /// `adm_push`: the tool's name as the completion scripts' shell functions spell it.
    var shellIdentifier: String { name.replacing("-", with: "_") }
    static let manualOption = "--generate-manual"
    static let versionOption = "--version"

    /// The shells a completion script is written for.
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    /// What the tool-level options print, with the exit code; nil when `arguments` ask for neither.
    func generate(_ arguments: [String], _ context: Context) -> ExitCode? {
        guard let first = arguments.first, first.hasPrefix("--generate-") else { return nil }
        let name = String(first.prefix { $0 != "=" })
        let inline = first.firstIndex(of: "=").map { String(first[first.index(after: $0)...]) }
        switch name {
        case Self.completionOption:
            var rest = arguments.dropFirst()
            // As swift-argument-parser's tools do: no shell named means the user's own.
            let shellName =
                inline ?? rest.popFirst()
                ?? context.environment["SHELL"].map { String($0.split(separator: "/").last ?? "") }
            guard rest.isEmpty else {
                return usage("unexpected argument \(StrayArguments.quotingFirst(of: rest))", context)
            }
            guard let shellName, let shell = Shell(rawValue: shellName) else {
                let named = shellName.map { "unknown shell \($0.quoted)" } ?? "no shell given"
                return usage("\(named): use \(ParsedArguments.list(Shell.allCases.map(\.rawValue)))", context)
            }
            context.output.print(completionScript(for: shell))
        case Self.manualOption:
            guard inline == nil else { return usage("'\(Self.manualOption)' takes no value", context) }
            guard arguments.count == 1 else {
                return usage("unexpected argument \(StrayArguments.quotingFirst(of: arguments.dropFirst()))", context)
            }
            context.output.print(ManualPage(self, date: ManualPage.date(context.environment)).roff())
        default:
            return nil
        }
        return .success
    }

    private func completionScript(for shell: Shell) -> String {
        switch shell {
        case .bash: BashCompletion(self).script()
        case .zsh: ZshCompletion(self).script()
        case .fish: FishCompletion(self).script()
        }
    }

    private func usage(_ message: String, _ context: Context) -> ExitCode {
        context.output.error("Error: \(message)")
        context.output.error(
            "Usage: \(name) \(Self.completionOption) \(Shell.allCases.map(\.rawValue).joined(separator: "|"))")
        context.output.error("       \(name) \(Self.manualOption)")
        return .usage
    }

    /// What every completion offers before a command is named.
    var toolOptions: [(name: String, help: String)] {
        [
            ("--help", CommandInfo.help.spec.help), ("-h", CommandInfo.help.spec.help),
            (Self.completionOption, "Print a completion script for bash, zsh or fish."),
            (Self.manualOption, "Print the man page (roff)."),
            (Self.versionOption, "Print the version."),
        ]
    }
}

extension String {
    /// One word for a POSIX shell, whatever it holds: 'it'\''s'.
    var shellQuoted: String { "'" + replacing("'", with: "'\\''") + "'" }
}
