import AdamantCore
public import AdamantNodes

/// How much the long-running commands (`flush`, `watch`) log: `-v`, else `ADM_LOG`, else info.
public enum LogOptions {
    public static let verbose = Flag(
        "verbose", short: "v", help: "Log debug lines too (each poll or pass, transaction ids); beats ADM_LOG.")
    public static let environmentVariable = "ADM_LOG"
    static let levels: [(name: String, level: LogLevel)] = [
        ("debug", .debug), ("info", .info), ("warning", .warning), ("error", .error),
    ]

    public static let help = """
        Events are logged to standard error, one line each: with the journal's <N> level prefix
        when it is systemd's journal stream (JOURNAL_STREAM), else with a UTC time and a level.
        ADM_LOG=debug|info|warning|error sets how much (default info; -v is debug).
        """

    /// The lowest level logged. An unknown `ADM_LOG` is an error (exit 64), even with `-v`:
    /// a typo in a unit file should not go unnoticed. Empty counts as unset.
    public static func threshold(_ arguments: ParsedArguments, _ environment: [String: String]) throws(CLIError)
        -> LogLevel
    {
        var level = LogLevel.info
        if let text = environment[environmentVariable], !text.isEmpty {
            guard let named = levels.first(where: { $0.name == text.lowercased() }) else {
                throw .invalidInput(
                    "\(environmentVariable) must be one of \(levels.map(\.name).joined(separator: ", ")), got \(text.quoted)"
                )
            }
            level = named.level
        }
        return arguments.flag(verbose) ? .debug : level
    }

    /// The logger for this run, and the progress line when standard error is a terminal.
    public static func logger(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Logger {
        let style = Logger.style(environment: context.environment, standardError: context.output.standardError)
        return Logger(
            threshold: try threshold(arguments, context.environment), style: style, output: context.output,
            progress: ProgressLine.onTerminal(context.output, style: style))
    }
}

/// A library's lines as debug detail: the command logs its own summary of each event, so what
/// the library says about the steps on the way never makes a second line at info for one event.
public struct Demoted: LogSink {
    let base: any LogSink
    /// Who speaks: `outbox` gives `outbox: …`.
    let source: String

    public init(_ base: any LogSink, as source: String) {
        self.base = base
        self.source = source
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        base.log(.debug, source + ": " + message())
    }

    public func logs(_ level: LogLevel) -> Bool { base.logs(.debug) }
}
