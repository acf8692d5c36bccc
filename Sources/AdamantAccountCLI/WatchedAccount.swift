public import AdamantCLI
public import AdamantCore

/// One account `adm-fetch watch` follows, and the home that keeps its cursor and journal.
public struct WatchedAccount: Sendable {
    public static let passphraseFiles = RepeatableOption(
        "passphrase-file", valueName: "path", valueKind: .file,
        help: "Read an account's passphrase from this file (mode 600 or stricter); repeat it to watch several accounts."
    )

    public let keyPair: KeyPair
    public let home: String

    /// Every --passphrase-file, each with the home; else the config file's `accounts`, each
    /// with its own home or the shared one; else the one passphrase from the environment or
    /// the terminal. An account given twice is refused: it would be shown twice.
    public static func all(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> [WatchedAccount] {
        let shared = try OutboxOptions.homeDirectory(arguments, context)
        var sources: [(file: String?, home: String)] = arguments.values(Self.passphraseFiles).map {
            ($0, shared)
        }
        if sources.isEmpty, let file = try OutboxOptions.configFile(context), let accounts = file.accounts,
            !accounts.isEmpty
        {
            do throws(ConfigFileError) {
                for (index, account) in accounts.enumerated() {
                    let passphraseFile = try file.expanded(
                        account.passphraseFile, key: "accounts[\(index)].passphraseFile",
                        environment: context.environment)
                    let home = try account.home.map { home throws(ConfigFileError) in
                        try file.expanded(home, key: "accounts[\(index)].home", environment: context.environment)
                    }
                    sources.append((passphraseFile, home ?? shared))
                }
            } catch {
                throw CLIError(error)
            }
        }
        if sources.isEmpty { sources = [(nil, shared)] }
        var accounts: [WatchedAccount] = []
        for source in sources {
            let passphrase: Passphrase
            do { passphrase = try PassphraseInput.passphrase(file: source.file, context) } catch {
                // With several files, which one is at fault.
                guard sources.count > 1, let file = source.file, error.message.hasPrefix("invalid passphrase") else {
                    throw error
                }
                throw .invalidInput("--passphrase-file \(file.quoted): \(error.message)")
            }
            let keyPair = KeyPair(passphrase: passphrase)
            if accounts.contains(where: { $0.keyPair.address == keyPair.address }) {
                throw .invalidInput("\(keyPair.address) is given twice: watch each account once")
            }
            accounts.append(WatchedAccount(keyPair: keyPair, home: source.home))
        }
        return accounts
    }
}
