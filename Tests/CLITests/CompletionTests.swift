import Foundation
import Testing

/// `--generate-completion-script`: each script is loaded by the real shell, and bash's (and
/// fish's, where installed) is asked what it completes, as a Tab would.
@Suite("shell completion", .timeLimit(.minutes(2)))
final class CompletionTests {
    /// A scratch folder for the scripts and for files to complete.
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The script `tool` prints for `shell`, saved in the folder.
    func script(_ tool: String, _ shell: String) async throws -> String {
        let result = try await run(tool, ["--generate-completion-script", shell])
        try #require(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let path = folder.appendingPathComponent("\(tool).\(shell)").path
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What bash completes for `words` (the last is the word under the cursor): the script is
    /// sourced, the function `complete -p` names is called with COMP_WORDS and COMP_CWORD set.
    func bash(_ words: String...) async throws -> [String] {
        let driver = """
            source "$1" || exit 3
            spec=$(complete -p "$2") || exit 4
            function=${spec##*-F }; function=${function%% *}
            shift
            COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
            COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            "$function" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let path = try await script(words[0], "bash")
        let result = try await run("/bin/bash", ["--norc", "--noprofile", "-c", driver, "driver", path] + words)
        try #require(result.status == 0, "bash exited \(result.status): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandNamesAndTheProviders() async throws {
        #expect(try await bash("adm-push", "reg") == ["register"])
        #expect(try await bash("adm-push", "register", "--provider", "").sorted() == ["apns", "apns-sandbox", "fcm"])
        // --provider=<Tab>: bash has split the word at the '='.
        #expect(
            try await bash("adm-push", "register", "--provider", "=", "").sorted() == ["apns", "apns-sandbox", "fcm"])
        #expect(try await bash("adm-push", "register", "--provider", "=", "apns-").sorted() == ["apns-sandbox"])
        #expect(try await bash("adm-push", "register", "--prov") == ["--provider"])
        #expect(try await bash("adm-push", "register", "--pro").sorted() == ["--provider", "--proxy"])
        // A value typed by hand gets no options offered in its place.
        #expect(try await bash("adm-push", "register", "--token", "").isEmpty)
        #expect(try await bash("adm-devnet", "start", "--ans-mode", "").sorted() == ["csharp", "ordered"])
        #expect(try await bash("adm-push", "--generate-completion-script", "").sorted() == ["bash", "fish", "zsh"])
        #expect(try await bash("adm-push", "help", "unr") == ["unregister"])
    }

    /// The commands and each command's options are exactly what `--help` lists.
    @Test(arguments: HelpTests.tools)
    func bashOffersWhatHelpLists(_ tool: String) async throws {
        let commands = try await HelpTests.commands(of: tool)
        #expect(try await bash(tool, "").sorted() == (commands + ["help"]).sorted())
        for command in commands {
            let help = try await run(tool, [command, "--help"]).stdout
            let listed = HelpTests.section("OPTIONS:", of: help).flatMap { line in
                line.split(separator: " ").prefix { $0.hasPrefix("-") }.map { $0.trimmingCharacters(in: [","]) }
            }
            #expect(try await bash(tool, command, "-").sorted() == listed.sorted(), "\(tool) \(command)")
        }
    }

    @Test func bashCompletesFilesAndDirectoriesWhereTheValueIsOne() async throws {
        let files = folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(
            at: files.appendingPathComponent("state"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: files.appendingPathComponent("push.json"))
        try Data().write(to: files.appendingPathComponent("passphrase"))
        let prefix = files.path + "/"
        #expect(try await bash("adm-fetch", "--payload", prefix + "pu") == [prefix + "push.json"])
        #expect(try await bash("adm-fetch", "fetch", "--payload", prefix + "pu") == [prefix + "push.json"])
        #expect(try await bash("adm-push", "keys", "--passphrase-file", prefix + "pa") == [prefix + "passphrase"])
        // Directories only: the files beside them are not offered.
        #expect(try await bash("adm-push", "status", "--home", prefix) == [prefix + "state"])
        // adm-fetch's default command: its options where a command name could be.
        #expect(try await bash("adm-fetch", "--pay") == ["--payload"])
        #expect(try await bash("adm-fetch", "12345", "--no-") == ["--no-names"])
    }

    @Test func anUnknownShellIsAUsageError() async throws {
        for tool in HelpTests.tools {
            let result = try await run(tool, ["--generate-completion-script", "tcsh"])
            #expect(result.status == 64 && result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("Error: unknown shell 'tcsh': use bash, zsh or fish\n"), "\(result.stderr)")
        }
        let none = try await run("adm-push", ["--generate-completion-script"])
        #expect(
            none.status == 64 && none.stderr.hasPrefix("Error: no shell given: use bash, zsh or fish\n"),
            "\(none.stderr)")
        // As with swift-argument-parser's tools, no shell named means $SHELL's.
        let fromShell = try await run(
            "adm-push", ["--generate-completion-script"], environment: ["SHELL": "/usr/bin/zsh"])
        #expect(fromShell.status == 0 && fromShell.stdout.hasPrefix("#compdef adm-push\n"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh")), arguments: HelpTests.tools)
    func theZshScriptParses(_ tool: String) async throws {
        let path = try await script(tool, "zsh")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("#compdef \(tool)\n"))
        let parsed = try await run("/usr/bin/zsh", ["-n", path])
        #expect(parsed.status == 0 && parsed.stderr.isEmpty, "\(parsed.stderr)")
        for command in try await HelpTests.commands(of: tool) {
            #expect(
                text.contains("\n_\(tool.replacingOccurrences(of: "-", with: "_"))_\(command)() {\n"),
                "\(tool) \(command)")
        }
    }

    /// What the zsh function hands `_arguments`, `_describe` and `compadd` (stubs that print
    /// their arguments) for `words`: zsh's own matching needs a terminal, the dispatch does not.
    func zsh(_ words: String...) async throws -> [String] {
        let driver = """
            _arguments() { print -r -- "words: $words[1] at $CURRENT"; print -rl -- "$@"; }
            _describe() { print -rl -- "${(@P)4}"; }
            compadd() { print -rl -- "$@"; }
            source "$1" || exit 3
            function=$2
            shift 2
            words=("$@"); CURRENT=$#
            $function
            """
        let path = try await script(words[0], "zsh")
        let function = "_" + words[0].replacingOccurrences(of: "-", with: "_")
        let result = try await run("/usr/bin/zsh", ["-f", "-c", driver, "driver", path, function] + words)
        try #require(result.status == 0 && result.stderr.isEmpty, "zsh exited \(result.status): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh")))
    func zshHandsTheRightSpecsOn() async throws {
        let commands = try await HelpTests.commands(of: "adm-push")
        #expect(try await zsh("adm-push", "reg").map { String($0.prefix { $0 != ":" }) } == commands + ["help"])
        let register = try await zsh("adm-push", "register", "--provider", "")
        #expect(register.first == "words: register at 3")  // the command's words alone, as _arguments expects
        #expect(
            register.contains("--provider=[Which push service the token belongs to.]:provider:(apns apns-sandbox fcm)"))
        #expect(register.contains { $0.hasPrefix("--home=[") && $0.hasSuffix("]:dir:_directories") })
        #expect(register.contains { $0.hasPrefix("--passphrase-file=[") && $0.hasSuffix("]:path:_files") })
        #expect(try await zsh("adm-push", "--generate-completion-script", "") == ["--", "bash", "zsh", "fish"])
        let fetch = try await zsh("adm-fetch", "12345", "--pay")
        #expect(fetch.first == "words: adm-fetch at 3")  // the default command: nothing to shift
        #expect(fetch.contains { $0.hasPrefix("--payload=[") && $0.hasSuffix("]:file:_files") })
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish")), arguments: HelpTests.tools)
    func theFishScriptParses(_ tool: String) async throws {
        let path = try await script(tool, "fish")
        let parsed = try await run("/usr/bin/fish", ["--no-execute", path], environment: ["HOME": folder.path])
        #expect(parsed.status == 0 && parsed.stderr.isEmpty, "\(parsed.stderr)")
    }

    /// fish answers `complete -C LINE` with what a Tab would offer there.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish")))
    func fishCompletesCommandNamesAndTheProviders() async throws {
        let push = try await script("adm-push", "fish")
        let fetch = try await script("adm-fetch", "fish")
        func fish(_ path: String, _ line: String) async throws -> [String] {
            let result = try await run(
                "/usr/bin/fish", ["--no-config", "-c", "source $argv[1]; and complete -C $argv[2]", path, line],
                environment: ["HOME": folder.path])
            try #require(result.status == 0, "fish: \(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        #expect(try await fish(push, "adm-push reg") == ["register"])
        #expect(try await fish(push, "adm-push register --provider ").sorted() == ["apns", "apns-sandbox", "fcm"])
        #expect(try await fish(push, "adm-push unregister --al") == ["--all"])
        #expect(try await fish(fetch, "adm-fetch 12345 --no-") == ["--no-names"])
    }
}
