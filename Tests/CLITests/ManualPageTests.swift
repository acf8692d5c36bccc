import AdamantFetch
import Foundation
import Testing

@testable import AdamantAccountCLI
@testable import AdamantCLI

/// `--generate-manual`: every page passes groff's warnings (and mandoc's, where installed)
/// and says what `--help` says: each command, each option, each exit code.
@Suite("man pages", .timeLimit(.minutes(2)))
final class ManualPageTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-manual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The page `tool` prints, and where it was saved.
    func page(_ tool: String) async throws -> (roff: String, path: String) {
        let result = try await run(tool, ["--generate-manual"])
        try #require(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        return (result.stdout, try save(result.stdout, as: "\(tool).1"))
    }

    func save(_ roff: String, as name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try roff.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// groff's every warning, for the PostScript, UTF-8 and ASCII devices and a 60-column line.
    func groffWarnings(_ path: String) async throws -> String {
        var warnings = ""
        for arguments in [
            ["-ww", "-man", "-z", path], ["-ww", "-man", "-z", "-Tutf8", path],
            ["-ww", "-man", "-z", "-Tascii", "-rLL=60n", path],
        ] {
            let result = try await run("/usr/bin/groff", arguments)
            #expect(result.status == 0, "groff \(arguments): \(result.stderr)")
            warnings += result.stderr
        }
        return warnings
    }

    /// The lines of section `title` (`.SH "TITLE"`) up to the next section.
    static func section(_ title: String, of roff: String) -> String {
        guard let start = roff.range(of: "\n.SH \"\(title)\"\n") else { return "" }
        let rest = roff[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff")), arguments: HelpTests.tools)
    func groffReportsNoWarnings(_ tool: String) async throws {
        let (_, path) = try await page(tool)
        #expect(try await groffWarnings(path).isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/mandoc")), arguments: HelpTests.tools)
    func mandocReportsNoWarnings(_ tool: String) async throws {
        let (_, path) = try await page(tool)
        let lint = try await run("/usr/bin/mandoc", ["-Tlint", "-W", "warning", path])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")
    }

    @Test(arguments: HelpTests.tools)
    func aPageNamesEveryCommandOptionAndExitCode(_ tool: String) async throws {
        let (roff, _) = try await page(tool)
        let titles = roff.split(separator: "\n").filter { $0.hasPrefix(".SH ") }
        #expect(
            titles
                == [
                    "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES",
                    "SEE ALSO",
                ].map { ".SH \"\($0)\"" })
        #expect(roff.contains("\n.TH \"\(Roff.escaped(tool.uppercased()))\" \"1\" "))

        let commands = try await HelpTests.commands(of: tool)
        let subsections = ("\n" + Self.section("COMMANDS", of: roff)).components(separatedBy: "\n.SS ").dropFirst()
        #expect(subsections.map { String($0.prefix { $0 != "\n" }) } == commands.map { "\"\($0)\"" })
        for (command, text) in zip(commands, subsections) {
            let help = try await run(tool, [command, "--help"]).stdout
            let options = HelpTests.section("OPTIONS:", of: help).flatMap { line in
                line.split(separator: " ").prefix { $0.hasPrefix("-") }.map { $0.trimmingCharacters(in: [","]) }
            }
            #expect(!options.isEmpty)
            for option in options {
                #expect(text.contains("\\fB" + Roff.escaped(option) + "\\fR"), "\(tool) \(command) \(option)")
            }
        }

        let help = try await run(tool, ["--help"]).stdout
        let codes = HelpTests.section("EXIT CODES:", of: help).compactMap { $0.split(separator: " ").first }
        #expect(codes.count == 7)
        let status = Self.section("EXIT STATUS", of: roff)
        for code in codes { #expect(status.contains(".TP\n\\fB\(code)\\fR\n"), "\(tool): exit code \(code)") }
    }

    /// The variables and files the code reads, under the tools whose options lead to them.
    @Test func theEnvironmentAndFilesAreTheOnesTheCodeUses() async throws {
        for tool in ["adm-push", "adm-fetch"] {
            let roff = try await page(tool).roff
            let environment = Self.section("ENVIRONMENT", of: roff)
            let files = Self.section("FILES", of: roff)
            for name in ["ADM_PASSPHRASE", "ADM_NODES", "ADM_PUSH_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME"] {
                #expect(environment.contains(".TP\n\\fB\(name)\\fR\n"), "\(tool): \(name)")
            }
            for name in [
                "config.json", "outbox.sqlite", "notifications.sqlite", "node-health.json", "contacts-ADDRESS.json",
            ] {
                #expect(files.contains("/" + Roff.escaped(name) + "\\fR\n"), "\(tool): \(name)")
            }
        }
        let devnet = try await page("adm-devnet").roff
        #expect(Self.section("ENVIRONMENT", of: devnet).contains("reads no environment variables"))
        // The page's figure for the address book is the code's.
        let minutes = AddressBookSource.maximumAge.components.seconds / 60
        #expect(
            AccountManual.files([OutboxOptions.home.spec]).contains { $0.text.contains("after \(minutes) minutes") })
    }

    /// The config file's entry names the desktop notifications' keys, the log's entry what
    /// they keep there, and adm-fetch's example of a desktop notification is --notify.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff")),
        arguments: ["adm-push", "adm-fetch"])
    func theDesktopKeysAndWhatTheyKeepAreNamed(_ tool: String) async throws {
        let (_, path) = try await page(tool)
        let rendered = try await run("/usr/bin/groff", ["-man", "-Tascii", "-P-cbou", "-rLL=200n", path]).stdout
        let text = rendered.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let files = try #require(
            text.range(of: " FILES ").flatMap { start in
                text.range(of: " EXAMPLES ").map { text[start.upperBound..<$0.lowerBound] }
            })
        for key in ["notify", "open", "preview", "mute", "quiet", "quietMode", "kinds"] {
            #expect(files.contains("\"\(key)\":"), "\(tool): \(key) in \(files)")
        }
        #expect(files.contains("Mute 1 hour") && files.contains("not shown yet"), "\(files)")
        guard tool == "adm-fetch" else { return }
        let examples = try #require(text.range(of: " EXAMPLES ").map { text[$0.upperBound...] })
        #expect(examples.contains("adm-fetch watch --notify") && !examples.contains("notify-send"), "\(examples)")
    }

    /// Filled text never carries a run of spaces: one is a multi-line literal that lost a
    /// line's `\` and brought the next line's indentation into the sentence.
    @Test(arguments: HelpTests.tools)
    func filledTextHasNoRunOfSpaces(_ tool: String) async throws {
        var filled = true
        for line in try await page(tool).roff.split(separator: "\n") {
            if line == ".nf" || line == ".fi" { filled = line == ".fi" }
            #expect(!filled || !line.contains("  "), "\(tool): \(line)")
        }
    }

    @Test func theDateIsSourceDateEpochsWhenSet() async throws {
        let result = try await run("adm-push", ["--generate-manual"], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(result.stdout.contains("\n.TH \"ADM\\-PUSH\" \"1\" 2023-11-14 "), "\(result.stdout.prefix(200))")
    }

    @Test func textIsEscaped() {
        #expect(Roff.escaped(#"a-b \fB x…y·z"#) == #"a\-b \efB x...y\[bu]z"#)
        #expect(Roff.escaped("é") == #"\[u00E9]"#)
        var roff = Roff()
        roff.text(".SH FAKE")
        roff.text("'br")
        roff.macro("SS", #"say "hi""#)
        #expect(roff.lines == [#"\&.SH FAKE"#, #"\&'br"#, #".SS "say \(dqhi\(dq""#])
    }

    /// Declarations that look like roff come out as the text they are.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff")))
    func roffInTheDeclarationsIsPrintedAsText() async throws {
        let tool = Tool(name: "adm-test", overview: ".TH FAKE 9", commands: [Hostile.self])
        let path = try save(ManualPage(tool, date: "2026-01-01").roff(), as: "hostile.1")
        #expect(try await groffWarnings(path).isEmpty)
        let text = try await run("/usr/bin/groff", ["-man", "-Tascii", "-P-cbou", "-rLL=200n", path])
        for literal in [".TH FAKE 9", ".SH FAKE", "'br", #"back\slash \fIitalic"#, "--x 'v", #"say "hi" -- now"#] {
            #expect(text.stdout.contains(literal), "\(literal) in \(text.stdout)")
        }
    }

    struct Hostile: Command {
        static let info = CommandInfo(
            name: "hostile", overview: "'br", options: [SingleOption("x", valueName: "'v", help: #"say "hi" -- now"#)],
            discussion: ".SH FAKE\nback\\slash \\fIitalic")
        init(_ arguments: ParsedArguments) throws(CLIError) {}
        func run(_ context: Context) async throws(CLIError) -> ExitCode { .success }
    }
}
