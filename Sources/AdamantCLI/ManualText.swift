/// What the man pages say beyond the declarations: the environment variables and files that
/// stand behind the shared options, listed for a tool only when it declares that option.
/// Each says what the code does (`PassphraseInput.passphrase`, `LogOptions`); a tool's other
/// options bring their own (`ManualSupplement`).
public enum ManualText {
    /// A variable or a file, and what it does.
    public struct Entry: Sendable {
        public let name: String
        public let text: String

        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    /// The tools of this package, for SEE ALSO.
    static let tools = ["adm-push", "adm-fetch", "adm-devnet"]

    static func environment(_ declared: Set<OptionSpec>, _ supplement: ManualSupplement) -> [Entry] {
        var entries: [Entry] = []
        if declared.contains(PassphraseInput.option.spec) {
            entries.append(
                Entry(
                    name: "ADM_PASSPHRASE",
                    text: """
                        The passphrase, when --passphrase-file is not given; without either, it is taken from \
                        the desktop's keyring when the command can ('adm-push login' puts it there), else \
                        asked for on the terminal with echo off. It is never taken from the command line.
                        """))
        }
        entries += supplement.environment(declared)
        if declared.contains(LogOptions.verbose.spec) {
            entries.append(
                Entry(
                    name: LogOptions.environmentVariable,
                    text: """
                        How much is logged to standard error: debug, info (the default), warning or error. \
                        --verbose means debug whatever this says; empty counts as unset, any other value is exit 64.
                        """))
            entries.append(
                Entry(
                    name: "JOURNAL_STREAM",
                    text: """
                        Set by systemd to the device:inode of the stream it connected to the journal. When that \
                        is standard error, log lines carry the journal's <N> priority prefix and no time; \
                        otherwise each starts with the UTC time and the level.
                        """))
        }
        return entries
    }
}

/// What a tool's man page says of the environment variables and files behind the options it
/// declares that AdamantCLI does not know: the entries for the options in `declared`.
public struct ManualSupplement: Sendable {
    /// Listed after the passphrase's variable, before the log's.
    public var environment: @Sendable (_ declared: Set<OptionSpec>) -> [ManualText.Entry]
    /// The files.
    public var files: @Sendable (_ declared: Set<OptionSpec>) -> [ManualText.Entry]

    /// Entries from `environment` and `files`; none by default.
    public init(
        environment: @escaping @Sendable (_ declared: Set<OptionSpec>) -> [ManualText.Entry] = { _ in [] },
        files: @escaping @Sendable (_ declared: Set<OptionSpec>) -> [ManualText.Entry] = { _ in [] }
    ) {
        self.environment = environment
        self.files = files
    }
}
