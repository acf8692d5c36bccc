import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantKeyring

/// `adm-push login`: the passphrase into the desktop's keyring, whence every command then
/// takes it.
struct LoginCommand: Command {
    static let info = CommandInfo(
        name: "login",
        overview: "Keep your passphrase in the desktop's keyring, for every command to take it from there.",
        options: [PassphraseInput.option],
        discussion: """
            Reads the passphrase from --passphrase-file PATH, else ADM_PASSPHRASE, else the terminal
            with echo off, checks it, and stores it in the keyring's default collection (the
            Secret Service: gnome-keyring, KWallet, KeePassXC) as "ADAMANT account U…", replacing
            what was stored for that account. Prints the account's address. Every command given
            no passphrase then takes it from there; with several accounts stored, --account U…,
            ADM_ACCOUNT or "account" in the config file says whose. A locked keyring is unlocked
            through the desktop's prompt first. Given a file, the file can be removed afterwards.
            Exits 69 when no session bus or no Secret Service is there, 75 when the keyring stays
            locked, 64 for a passphrase that is not one.
            """)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        try PassphraseInput.refuseArguments(arguments, of: "login")
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        // Before the passphrase: nobody types it for a keyring that is not there.
        let keyring = try await KeyringCommands.connect(context)
        let file = arguments.value(PassphraseInput.option)
        var given = try PassphraseInput.given(file: file, context)
        if given == nil { given = try PassphraseInput.typed(context) }
        guard let passphrase = given else {
            throw .invalidInput(
                "no passphrase to store: give --passphrase-file PATH or ADM_PASSPHRASE, or run on a terminal to be asked"
            )
        }
        let address: Address
        do { address = try await keyring.store(passphrase) } catch { throw KeyringCommands.failure(error) }
        if keyring.keyring.transport == .plain {
            context.output.error(
                "warning: the keyring offers no encrypted session: the passphrase crossed the session bus unencrypted")
        }
        guard context.output.print(address.description) else { return .outputFailed }
        if let file {
            context.output.error(
                "The passphrase of \(address) is in the keyring now: \(file.quoted) can be removed (shred -u it, if you like)."
            )
        }
        return .success
    }
}

/// `adm-push logout`: the passphrases out of the keyring.
struct LogoutCommand: Command {
    static let all = Flag("all", help: "Remove every account's passphrase that adm-push stored.")
    static let account = SingleOption(
        "account", valueName: "U…",
        help: "Remove this account's passphrase (else ADM_ACCOUNT's, else the config file's \"account\").")
    static let info = CommandInfo(
        name: "logout",
        overview: "Remove your passphrase from the desktop's keyring.",
        options: [account, all],
        discussion: """
            Removes the passphrase of the account every command would act on: --account U…, else
            ADM_ACCOUNT, else "account" in the config file, else the one account stored (several:
            exit 64, naming them); with --all, every account's. Every item of that account goes,
            and nothing else. Prints each address removed; an account with nothing stored is not
            an error. The homes, the outbox and the registrations stay. Exits 69 when no session
            bus or no Secret Service is there, 75 when the keyring stays locked.
            """)

    let arguments: ParsedArguments
    let removesAll: Bool

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else {
            throw .usage("unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional))")
        }
        removesAll = arguments.flag(Self.all)
        if removesAll, arguments.value(Self.account) != nil { throw .usage("give --account or --all, not both") }
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let chosen = removesAll ? nil : try AccountPassphrase.accountSetting(arguments, context)
        let keyring = try await KeyringCommands.connect(context)
        let removing: [AccountKeyring.Account]
        do {
            if let chosen {
                removing = try await keyring.account(chosen.value).map { [$0] } ?? []
            } else {
                removing = try await keyring.accounts()
            }
        } catch {
            throw KeyringCommands.failure(error)
        }
        if chosen == nil, !removesAll, removing.count > 1 {
            throw .invalidInput(
                "the keyring holds the passphrases of \(removing.map(\.address.description).joined(separator: ", ")): give --account U… or --all"
            )
        }
        if removing.isEmpty {
            context.output.error(
                chosen.map {
                    "The keyring holds no passphrase of \($0.value) (chosen by \(AccountPassphrase.chooser($0.origin))): nothing was removed."
                } ?? "The keyring holds no passphrase that adm-push stored.")
        }
        for account in removing {
            do { try await keyring.remove(account) } catch { throw KeyringCommands.failure(error) }
            guard context.output.print(account.address.description) else { return .outputFailed }
        }
        return .success
    }
}

private enum KeyringCommands {
    /// The keyring, or 69 saying what is missing (the bus, the service, a library).
    static func connect(_ context: Context) async throws(CLIError) -> AccountKeyring {
        do { return try await AccountKeyring.connect(environment: context.environment) } catch {
            throw failure(error)
        }
    }

    /// What a keyring's failure exits with: 75 while it stays locked, else 69.
    static func failure(_ error: KeyringError) -> CLIError {
        if case .locked = error { return CLIError("\(error)", exitCode: .temporaryFailure) }
        return CLIError("\(error)", exitCode: .unavailable)
    }
}
