public import AdamantCLI
public import AdamantCore

/// One account `adm-fetch watch` follows, and the home that keeps its cursor and journal.
public struct WatchedAccount: Sendable {
    public static let passphraseFiles = RepeatableOption(
        "passphrase-file", valueName: "path", valueKind: .file,
        help: "Read an account's passphrase from this file (mode 600 or stricter); repeat it to watch several accounts."
    )

    public static let accountsInKeyring = RepeatableOption(
        "account", valueName: "U…",
        help: "Watch this account, its passphrase in the keyring ('adm-push login'); repeat it to watch several.")

    public let keyPair: KeyPair
    public let home: String
    /// What the config file's entry calls it, for its bubbles.
    public let name: String?

    /// What its bubbles name it by when a watch follows several accounts: its name, else its
    /// address shortened as the apps show one (`U1560…2016`).
    public var label: String {
        name ?? "\(keyPair.address.description.prefix(5))…\(keyPair.address.description.suffix(4))"
    }

    /// Where one account's passphrase is.
    private enum Source {
        case file(String)
        case keyring(Address)
        /// The one passphrase of a command on one account (`AccountPassphrase`).
        case chosen
    }

    /// Every --passphrase-file and --account, each with the home; else the config file's
    /// `accounts`, each with its own home or the shared one; else the one account a command on
    /// one account would take. An account given twice is refused: it would be shown twice.
    /// A locked keyring is waited for, `log` saying so.
    public static func all(
        _ arguments: ParsedArguments, _ context: Context, log: @escaping @Sendable (String) -> Void
    ) async throws(CLIError) -> [WatchedAccount] {
        let shared = try OutboxOptions.homeDirectory(arguments, context)
        var sources: [(source: Source, home: String, name: String?)] = arguments.values(Self.passphraseFiles).map {
            (.file($0), shared, nil)
        }
        for text in arguments.values(Self.accountsInKeyring) {
            sources.append((.keyring(try AccountPassphrase.account(text)), shared, nil))
        }
        if sources.isEmpty, let file = try OutboxOptions.configFile(context), let accounts = file.accounts,
            !accounts.isEmpty
        {
            do throws(ConfigFileError) {
                for (index, account) in accounts.enumerated() {
                    let home = try account.home.map { home throws(ConfigFileError) in
                        try file.expanded(home, key: "accounts[\(index)].home", environment: context.environment)
                    }
                    switch account.passphrase {
                    case .keyring(let address):
                        sources.append((.keyring(address), home ?? shared, account.name))
                    case .file(let path):
                        let expanded = try file.expanded(
                            path, key: "accounts[\(index)].passphraseFile", environment: context.environment)
                        sources.append((.file(expanded), home ?? shared, account.name))
                    }
                }
            } catch {
                throw CLIError(error)
            }
        }
        if sources.isEmpty { sources = [(.chosen, shared, nil)] }
        let whenLocked = AccountPassphrase.WhenLocked.wait(every: .seconds(2), log: log)
        var accounts: [WatchedAccount] = []
        for (source, home, name) in sources {
            let keyPair: KeyPair
            switch source {
            case .file(let file):
                do { keyPair = KeyPair(passphrase: try PassphraseInput.passphrase(file: file, context)) } catch {
                    // With several files, which one is at fault.
                    guard sources.count > 1, error.message.hasPrefix("invalid passphrase") else { throw error }
                    throw .invalidInput("--passphrase-file \(file.quoted): \(error.message)")
                }
            case .keyring(let address):
                keyPair = try await AccountPassphrase.stored(address, context, whenLocked: whenLocked)
            case .chosen:
                keyPair = try await AccountPassphrase.keys(arguments, context, whenLocked: whenLocked).keyPair
            }
            if accounts.contains(where: { $0.keyPair.address == keyPair.address }) {
                throw .invalidInput("\(keyPair.address) is given twice: watch each account once")
            }
            accounts.append(WatchedAccount(keyPair: keyPair, home: home, name: name))
        }
        return accounts
    }
}
