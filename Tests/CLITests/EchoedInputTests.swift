import Foundation
import Testing

/// What a user typed is quoted back with its control characters escaped, so an argument can
/// never forge a line of output or drive the terminal.
@Suite("echoed input", .timeLimit(.minutes(1)))
struct EchoedInputTests {
    @Test func aNodeURLWithALineBreakStaysOnOneLine() async throws {
        let result = try await run("adm-push", ["nodes", "--node", "http://x\r\nX: y"])
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(!result.stderr.contains("\r"))
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.contains { $0.hasPrefix("X: y") }, "the line break started a line: \(result.stderr)")
        #expect(lines.filter { $0.hasPrefix("Error: ") }.count == 1, "\(result.stderr)")
        #expect(
            lines.first?.hasPrefix("Error: ") == true && lines.first?.contains(#"http://x\r\nX: y"#) == true,
            "\(result.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: adm-push nodes") == true)
    }

    @Test func everyQuotedValueIsEscaped() async throws {
        let command = try await run("adm-push", ["kyes\u{1B}[2J"])
        #expect(
            command.stderr == "Error: unknown command 'kyes\\u{1B}[2J'\n  See 'adm-push --help' for the commands.\n")

        let file = try await run("adm-push", ["keys", "--passphrase-file", "/nonexistent\n\u{1B}[31m"])
        #expect(
            file.stderr
                == "Error: cannot read --passphrase-file '/nonexistent\\n\\u{1B}[31m': No such file or directory\n")

        let count = try await run("adm-devnet", ["start", "--nodes", "3\r\nX"])
        #expect(
            count.stderr.hasPrefix(
                "Error: --nodes takes a whole number from 1 to 64, got '3\\r\\nX'\nUsage: adm-devnet start "))

        let argument = try await run("adm-push", ["nodes", "--node", "http://127.0.0.1:1", "a\u{7}b"])
        #expect(argument.stderr.hasPrefix("Error: unexpected argument 'a\\u{7}b'\n"))
    }

    /// A value of any length is quoted back cut, with its length: the error stays one line of
    /// a readable size.
    @Test func aLongValueIsCutWhereItIsQuoted() async throws {
        let long = String(repeating: "7x", count: 60_000)
        for arguments in [["fetch", long], ["watch", "--from-height", long], ["fetch", "1", "--deadline", long]] {
            let result = try await run(
                "adm-fetch", arguments, environment: ["ADM_PASSPHRASE": "x", "ADM_NODES": "http://127.0.0.1:1"])
            #expect(result.status == 64, "\(result.stderr.prefix(300))")
            let first = try #require(result.stderr.split(separator: "\n").first)
            #expect(first.count < 400 && first.contains("…' (120000 characters)"), "\(first.prefix(400))")
        }
    }
}
