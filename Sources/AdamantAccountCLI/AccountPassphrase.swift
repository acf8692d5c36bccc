public import AdamantCLI
public import AdamantCore
import AdamantKeyring

/// Where a command's passphrase comes from, in this order: `--passphrase-file`,
/// `ADM_PASSPHRASE`, the desktop's keyring (`adm-push login` puts it there), the terminal.
/// `--account`, `ADM_ACCOUNT` and the config file's `account` choose among the keyring's
/// accounts, and among nothing else.
public enum AccountPassphrase {
    public static let account = SingleOption(
        "account", valueName: "U…",
        help: "Take this account's passphrase from the keyring (else ADM_ACCOUNT, else the config file's \"account\").")

    /// The options of a command on one account.
    public static let options: [any DeclaredOption] = [PassphraseInput.option, account]

    public static let help = """
        The passphrase is read from --passphrase-file PATH (a file only you can read), else from
        the ADM_PASSPHRASE environment variable, else from the desktop's keyring, where
        'adm-push login' keeps it (--account U… picks one when it holds several), else asked
        for on the terminal with echo off. It is never accepted as an argument.
        """

    /// What a command does while the keyring is locked.
    public enum WhenLocked: Sendable {
        /// Ask for the unlock through the service's prompt, and fail if it stays locked.
        case prompt
        /// Fail at once: for a run nobody is there to answer (a timer's), which must not put
        /// a prompt on the desktop every few minutes.
        case fail
        /// Ask once, then wait, looking every `every`, for the user or the login to unlock it:
        /// for a command that runs for hours.
        case wait(every: Duration, log: @Sendable (String) -> Void)
    }

    /// The keys of this run's passphrase, derived off this thread, or on it when `derivingHere` (for a command whose other
    /// threads are busy already), unless the keyring's check of its item derived them.
    /// `recipient`: the account a push is for, which the keyring's accounts are chosen by
    /// when nothing else chooses.
    public static func keys(
        _ arguments: ParsedArguments, _ context: Context, whenLocked: WhenLocked = .prompt, derivingHere: Bool = false,
        recipient: Address? = nil
    ) async throws(CLIError) -> AccountKeys {
        func keys(_ passphrase: Passphrase) -> AccountKeys {
            derivingHere ? AccountKeys(KeyPair(passphrase: passphrase)) : AccountKeys(deriving: passphrase)
        }
        let file = arguments.value(PassphraseInput.option)
        if let given = try PassphraseInput.given(file: file, context) { return keys(given) }
        let chosen = try accountSetting(arguments, context)?.value ?? recipient
        let (keyring, stored): (AccountKeyring, [AccountKeyring.Account])
        do { (keyring, stored) = try await connected(context) } catch {
            if let typed = try PassphraseInput.typed(context) { return keys(typed) }
            throw Self.none("the keyring cannot be reached (\(Self.reason(error)))")
        }
        let listed = stored.map(\.address.description).joined(separator: ", ")
        let found: AccountKeyring.Account
        if let chosen {
            guard let match = stored.first(where: { $0.address == chosen }) else {
                if let typed = try PassphraseInput.typed(context) { return keys(typed) }
                throw .invalidInput(
                    "the keyring holds no passphrase of \(chosen)\(stored.isEmpty ? "" : " (it holds \(listed))"): store it with 'adm-push login', or give --passphrase-file PATH or ADM_PASSPHRASE"
                )
            }
            found = match
        } else {
            guard stored.count <= 1 else {
                throw .invalidInput(
                    "the keyring holds the passphrases of \(listed): choose one with --account U…, ADM_ACCOUNT or \"account\" in the config file"
                )
            }
            guard let only = stored.first else {
                if let typed = try PassphraseInput.typed(context) { return keys(typed) }
                throw Self.none("the keyring holds none")
            }
            found = only
        }
        return AccountKeys(try await read(found, from: keyring, whenLocked: whenLocked))
    }

    /// The keys of `address` from its passphrase in the keyring, for an account the command
    /// was told to take from there (a watch's `{"account": "U…"}`).
    public static func stored(
        _ address: Address, _ context: Context, whenLocked: WhenLocked
    ) async throws(CLIError) -> KeyPair {
        let (keyring, stored): (AccountKeyring, [AccountKeyring.Account])
        do { (keyring, stored) = try await connected(context) } catch {
            throw CLIError("no passphrase of \(address): \(error)", exitCode: .unavailable)
        }
        guard let found = stored.first(where: { $0.address == address }) else {
            throw .invalidInput("the keyring holds no passphrase of \(address): store it with 'adm-push login'")
        }
        return try await read(found, from: keyring, whenLocked: whenLocked)
    }

    /// The keyring of the session `context` names, and the accounts it holds.
    static func connected(_ context: Context) async throws(KeyringError) -> (AccountKeyring, [AccountKeyring.Account]) {
        let keyring = try await AccountKeyring.connect(environment: context.environment)
        return (keyring, try await keyring.accounts())
    }

    /// No source gave a passphrase; the keyring's part is `keyring`.
    private static func none(_ keyring: String) -> CLIError {
        .invalidInput(
            "no passphrase: none given by --passphrase-file or ADM_PASSPHRASE, no terminal to ask on, and \(keyring); store it once with 'adm-push login' in the desktop session, or give --passphrase-file PATH (mode 600) or ADM_PASSPHRASE"
        )
    }

    /// What kept the keyring out of reach, without the advice `KeyringError` adds.
    static func reason(_ error: KeyringError) -> String {
        switch error {
        case .noSessionBus(let detail): detail
        case .noSecretService(let detail): "no Secret Service on the session bus: \(detail)"
        default: "\(error)"
        }
    }

    /// The account `--account`, `ADM_ACCOUNT` or the config file's `account` chooses, with
    /// where the choice came from; nil when none does.
    public static func accountSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError)
        -> Setting<Address>?
    {
        if let text = arguments.value(account) {
            return Setting(try Self.account(text), .flag("--" + account.spec.name))
        }
        if let text = context.environment["ADM_ACCOUNT"], !text.isEmpty {
            guard let address = try? Address(text) else {
                throw .invalidInput("ADM_ACCOUNT must be an ADAMANT address (U and digits), got \(text.quoted)")
            }
            return Setting(address, .environment("ADM_ACCOUNT"))
        }
        guard let file = try OutboxOptions.configFile(context), let address = file.account else { return nil }
        return Setting(address, .file(file.path))
    }

    /// The address an `--account` names.
    public static func account(_ text: String) throws(CLIError) -> Address {
        guard let address = try? Address(text) else {
            throw .usage("--account takes an ADAMANT address (U and digits), got \(text.quoted)")
        }
        return address
    }

    private static func read(
        _ account: AccountKeyring.Account, from keyring: AccountKeyring, whenLocked: WhenLocked
    ) async throws(CLIError) -> KeyPair {
        do throws(KeyringError) {
            do throws(KeyringError) {
                if case .fail = whenLocked { return try await keyring.keyPair(of: account, unlocking: false) }
                return try await keyring.keyPair(of: account)
            } catch .locked(let detail) {
                guard case .wait(let interval, let log) = whenLocked else { throw .locked(detail) }
                log("the keyring is locked: waiting for it to be unlocked to read the passphrase of \(account.address)")
                let unlocked = try await keyring.unlocked(account, every: interval)
                return try await keyring.keyPair(of: unlocked, unlocking: false)
            }
        } catch {
            switch error {
            case .locked: throw CLIError("\(error)", exitCode: .temporaryFailure)
            case .notAPassphrase: throw .invalidInput("\(error)")
            default: throw CLIError("\(error)", exitCode: .unavailable)
            }
        }
    }
}
