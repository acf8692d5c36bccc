public import AdamantCore

/// What a command says about itself: its usage line, help and parsing all come from this.
public struct CommandInfo: Sendable {
    /// Every command has it; `help <command>` prints the same text.
    public static let help = Flag("help", short: "h", help: "Show help information.")

    public let name: String
    public let overview: String
    /// The declared options, then `--help`.
    public let options: [OptionSpec]
    /// Extra help paragraphs (where input comes from, examples).
    public let discussion: String?

    public init(name: String, overview: String, options: [any DeclaredOption], discussion: String? = nil) {
        self.name = name
        self.overview = overview
        self.options = (options + [Self.help]).map(\.spec)
        self.discussion = discussion
    }
}

/// One subcommand: parsed from arguments first (pure, testable), then run.
public protocol Command: Sendable {
    static var info: CommandInfo { get }
    init(_ arguments: ParsedArguments) throws(CLIError)
    func run(_ context: Context) async throws(CLIError) -> ExitCode
}

/// Everything a command may touch of the outside world, passed in so tests need no globals.
public struct Context: Sendable {
    /// The variables, `ADM_PASSPHRASE` not among them: a passphrase is no ordinary string.
    public let environment: [String: String]
    /// The passphrase `ADM_PASSPHRASE` gave, if it was set.
    public let passphraseVariable: SecretText?
    public let output: Output
    public let terminal: Terminal
    /// The config file, read when a setting first needs it.
    public let configFile: ConfigFileSource
    /// The time of day, for what the user sees (quiet hours, mutes) and what is kept, and
    /// monotonic time, for what waits and retries: the one value every part of the command
    /// reads them from.
    public let clocks: Clocks

    /// `environment`'s `ADM_PASSPHRASE`, if it has one, becomes `passphraseVariable`.
    public init(
        environment: [String: String], passphraseVariable: SecretText? = nil, output: Output, terminal: Terminal,
        clocks: Clocks = .system
    ) {
        var environment = environment
        let given = environment.removeValue(forKey: ProcessSecrets.variable).map(SecretText.init)
        self.passphraseVariable = passphraseVariable ?? given
        self.environment = environment
        self.output = output
        self.terminal = terminal
        configFile = ConfigFileSource(environment: environment)
        self.clocks = clocks
    }
}
