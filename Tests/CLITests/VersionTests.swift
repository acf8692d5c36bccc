import AdamantCLI
import Foundation
import Testing

/// `--version`: each tool prints its name and the one version constant, which the Debian
/// package's version is read from.
@Suite("version", .timeLimit(.minutes(1)))
struct VersionTests {
    @Test(arguments: HelpTests.tools)
    func versionPrintsTheToolAndTheConstant(_ tool: String) async throws {
        let result = try await run(tool, ["--version"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout == "\(tool) \(Version.current)\n")
    }

    @Test func theConstantIsADebianUpstreamVersion() {
        // dpkg refuses a version that does not start with a digit or holds a space or a dash.
        #expect(Version.current.first?.isNumber == true)
        #expect(Version.current.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".+~".contains($0)) })
    }

    @Test func anArgumentAfterVersionIsAUsageError() async throws {
        let result = try await run("adm-push", ["--version", "keys"])
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix("Error: unexpected argument 'keys' ('--version' takes none)\n"), "\(result.stderr)")
        // A passphrase typed after it is not repeated.
        let words = KeysCommandTests.passphrase.split(separator: " ").map(String.init)
        let typed = try await run("adm-push", ["--version"] + words)
        #expect(typed.status == 64 && !typed.stderr.contains("hamster"), "\(typed.stderr)")
    }

    /// Help, the man page and every completion script offer it.
    @Test(arguments: HelpTests.tools)
    func helpTheManualAndTheCompletionsNameIt(_ tool: String) async throws {
        #expect(try await run(tool, ["--help"]).stdout.contains("'\(tool) --version' its version."))
        let manual = try await run(tool, ["--generate-manual"]).stdout
        #expect(ManualPageTests.section("SYNOPSIS", of: manual).contains("\\-\\-version"))
        for shell in ["bash", "zsh", "fish"] {
            let script = try await run(tool, ["--generate-completion-script", shell]).stdout
            #expect(script.contains(shell == "fish" ? "-l version" : "--version"), "\(tool) \(shell)")
        }
    }
}
