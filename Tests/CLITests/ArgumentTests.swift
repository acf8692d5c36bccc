import AdamantCLI
import AdamantCore
import Testing

@Suite("Argument parsing")
struct ArgumentTests {
    static let json = Flag("json", help: "")
    static let home = SingleOption("home", valueName: "dir", help: "")
    static let node = RepeatableOption("node", valueName: "url", help: "")
    static let mode = SingleOption("mode", valueName: "mode", allowedValues: ["fast", "slow"], help: "")
    let options = [json.spec, home.spec, node.spec, mode.spec, CommandInfo.help.spec]

    @Test func valuesFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(
            [
                "--json", "--home=/tmp/a", "--node", "http://a", "txid", "--node=http://b", "-h", "--mode", "slow",
                "--", "--json",
            ],
            options: options)
        #expect(parsed.flag(Self.json) && parsed.flag(CommandInfo.help))
        #expect(parsed.value(Self.home) == "/tmp/a")
        #expect(parsed.values(Self.node) == ["http://a", "http://b"])
        #expect(parsed.value(Self.mode) == "slow")
        #expect(parsed.positional == ["txid", "--json"])
    }

    @Test(arguments: [
        (["--home"], "'--home' needs a value"),
        (["--home", "a", "--home", "b"], "'--home' is given more than once"),
        (["--json=yes"], "'--json' takes no value"),
        (["--nod", "x"], "unknown option '--nod' (did you mean '--node'?)"),
        (["--zzzzzz"], "unknown option '--zzzzzz'"),
        (["--mode", "medium"], "'--mode' takes fast or slow, got 'medium'"),
        (["--zz\u{1B}[2J\r\n"], "unknown option '--zz\\u{1B}[2J\\r\\n'"),
    ])
    func mistakesAreUsageErrors(_ arguments: [String], _ message: String) {
        #expect(throws: CLIError.self) { try ParsedArguments(arguments, options: options) }
        do { _ = try ParsedArguments(arguments, options: options) } catch {
            #expect(error.message == message)
            #expect(error.exitCode == .usage && error.showsUsage)
        }
    }

    @Test func quotingEscapesEveryControlCharacter() {
        #expect("http://x\r\nX: y".quoted == #"'http://x\r\nX: y'"#)
        #expect("a\tb\u{7F}\u{0}\u{85}\u{202E}\u{2028}".quoted == #"'a\tb\u{7F}\u{0}\u{85}\u{202E}\u{2028}'"#)
        #expect("plain ünïcödé 🙂".quoted == "'plain ünïcödé 🙂'")
    }

    /// Seconds are digits with an optional decimal part: what `Double` also reads (hex,
    /// exponents, nan, inf, signs, blanks) is refused, and so is a value outside the range.
    @Test func secondsAreWrittenThePlainWay() {
        #expect(SingleOption.seconds("16", in: 0...3600) == .seconds(16))
        #expect(SingleOption.seconds("0.25", in: 0...3600) == .milliseconds(250))
        #expect(SingleOption.seconds(".5", in: 0...3600) == .milliseconds(500))
        #expect(SingleOption.seconds("2.", in: 0...3600) == .seconds(2))
        #expect(SingleOption.seconds("0", in: 0...3600) == .zero)
        for text in ["0x10", "1e1", "nan", "inf", "+5", "-0", " 5", "5 ", "", ".", "1.2.3", "١٢", "3601", "0x1p4"] {
            #expect(SingleOption.seconds(text, in: 0...3600) == nil, "\(text)")
        }
    }
}
