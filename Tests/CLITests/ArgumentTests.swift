import AdamantCLI
import Testing

@Suite("Argument parsing")
struct ArgumentTests {
    let options: [OptionSpec] = [
        .flag("json", help: ""), .value("home", "dir", help: ""), .repeatable("node", "url", help: ""),
        .flag("help", short: "h", help: ""),
    ]

    @Test func valuesFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(
            ["--json", "--home=/tmp/a", "--node", "http://a", "txid", "--node=http://b", "-h", "--", "--json"],
            options: options)
        #expect(parsed.flag("json") && parsed.flag("help"))
        #expect(parsed.value("home") == "/tmp/a")
        #expect(parsed.values("node") == ["http://a", "http://b"])
        #expect(parsed.positional == ["txid", "--json"])
    }

    @Test(arguments: [
        (["--home"], "'--home' needs a value"),
        (["--home", "a", "--home", "b"], "'--home' is given more than once"),
        (["--json=yes"], "'--json' takes no value"),
        (["--nod", "x"], "unknown option '--nod' (did you mean '--node'?)"),
        (["--zzzzzz"], "unknown option '--zzzzzz'"),
    ])
    func mistakesAreUsageErrors(_ arguments: [String], _ message: String) {
        #expect(throws: CLIError.self) { try ParsedArguments(arguments, options: options) }
        do { _ = try ParsedArguments(arguments, options: options) } catch {
            #expect(error.message == message)
            #expect(error.exitCode == .usage)
        }
    }
}
