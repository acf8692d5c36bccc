public import AdamantCLI
public import AdamantCore
import AdamantKeyring

/// Which account a command acts on, and where its passphrase comes from: the one rule every
/// command follows.
///
/// The account: `--account`, else (for a push) its recipient wherever its passphrase is at
/// hand, else `ADM_ACCOUNT`, else the config file's `account`, else the keyring's only one.
/// The passphrase: `--passphrase-file`, else `ADM_PASSPHRASE`, else the account's in the
/// desktop's keyring (`adm-push login` puts it there), else the terminal. A passphrase given
/// for another account than the chosen one is refused, naming both, before anything is read or
/// written.
public enum AccountPassphrase {
    public static let account = SingleOption(
        "account", valueName: "U…",
        help:
            "Act on this account (else ADM_ACCOUNT, else the config file's \"account\"): its passphrase comes from the keyring, and one given for another account is refused."
    )

    /// The options of a command on one account.
    public static let options: [any DeclaredOption] = [PassphraseInput.option, account]

    public static let help = """
        The account is --account U…, else ADM_ACCOUNT, else "account" in the config file, else
        the one account in the keyring. Its passphrase is read from --passphrase-file PATH (a
        file only you can read), else from the ADM_PASSPHRASE environment variable, else from
        the desktop's keyring, where 'adm-push login' keeps it, else asked for on the terminal
        with echo off; a passphrase of another account than the chosen one is refused. It is
        never accepted as an argument.
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

    /// The keys of the chosen account's passphrase, derived off this thread, or on it when
    /// `derivingHere` (for a command whose other threads are busy already). `recipient`: the
    /// account a push is for, which chooses where its passphrase is at hand, unless `--account`
    /// chooses another (refused).
    public static func keys(
        _ arguments: ParsedArguments, _ context: Context, whenLocked: WhenLocked = .prompt, derivingHere: Bool = false,
        recipient: Address? = nil
    ) async throws(CLIError) -> AccountKeys {
        let named = try accountSetting(arguments, context)
        if let recipient, let named, case .flag = named.origin, named.value != recipient {
            throw .invalidInput(
                "the push is for \(recipient), but --account chooses \(named.value): leave --account out, or give the push's own"
            )
        }
        func derived(_ passphrase: Passphrase) -> AccountKeys {
            derivingHere ? AccountKeys(KeyPair(passphrase: passphrase)) : AccountKeys(deriving: passphrase)
        }
        // A passphrase the user gave is the chosen account's, or the push's recipient's.
        func checked(_ passphrase: Passphrase, from source: String) async throws(CLIError) -> AccountKeys {
            let keys = derived(passphrase)
            guard let named else { return keys }
            let own = await keys.keyPair.address
            guard own == named.value || own == recipient else {
                throw .invalidInput(
                    "the passphrase \(source) gave is \(own)'s, but \(chooser(named.origin)) chooses \(named.value): give \(named.value)'s passphrase, or choose \(own)"
                )
            }
            return keys
        }
        let file = arguments.value(PassphraseInput.option)
        if let given = try PassphraseInput.given(file: file, context) {
            return try await checked(given, from: file == nil ? "ADM_PASSPHRASE" : "--passphrase-file")
        }
        let keyring: AccountKeyring
        let found: Lookup
        do {
            keyring = try await AccountKeyring.connect(environment: context.environment)
            found = try await lookup(in: keyring, recipient: recipient, named: named?.value)
        } catch {
            if let typed = try PassphraseInput.typed(context) { return try await checked(typed, from: "the terminal") }
            throw Self.none("the keyring cannot be reached (\(Self.reason(error)))")
        }
        switch found {
        case .found(let account):
            return AccountKeys(try await read(account, from: keyring, whenLocked: whenLocked, context))
        case .notHeld(let address, let held):
            if let typed = try PassphraseInput.typed(context) { return try await checked(typed, from: "the terminal") }
            let listed = held.isEmpty ? "" : " (it holds \(held.map(\.description).joined(separator: ", ")))"
            throw .invalidInput(
                "the keyring holds no passphrase of \(address)\(listed): store it with 'adm-push login', or give --passphrase-file PATH or ADM_PASSPHRASE"
            )
        case .nothing:
            if let typed = try PassphraseInput.typed(context) { return try await checked(typed, from: "the terminal") }
            throw Self.none("the keyring holds none")
        case .several(let held):
            throw .invalidInput(
                "the keyring holds the passphrases of \(held.map(\.description).joined(separator: ", ")): choose one with --account U…, ADM_ACCOUNT or \"account\" in the config file"
            )
        }
    }

    /// The keys of `address` from its passphrase in the keyring, for an account the command
    /// was told to take from there (a watch's `{"account": "U…"}`).
    public static func stored(
        _ address: Address, _ context: Context, whenLocked: WhenLocked
    ) async throws(CLIError) -> KeyPair {
        let keyring: AccountKeyring
        let found: AccountKeyring.Account?
        do {
            keyring = try await AccountKeyring.connect(environment: context.environment)
            found = try await keyring.account(address)
        } catch {
            throw CLIError("no passphrase of \(address): \(error)", exitCode: .unavailable)
        }
        guard let found else {
            throw .invalidInput("the keyring holds no passphrase of \(address): store it with 'adm-push login'")
        }
        return try await read(found, from: keyring, whenLocked: whenLocked, context)
    }

    /// What the keyring holds of the account the rule chooses.
    enum Lookup {
        case found(AccountKeyring.Account)
        /// The chosen account's passphrase is not there; `held` is what is.
        case notHeld(Address, held: [Address])
        /// None is chosen and the keyring holds none.
        case nothing
        /// None is chosen and the keyring holds these.
        case several([Address])
    }

    /// The push's `recipient` where the keyring holds it, else `named`, else the only
    /// account: one search for each account named, a listing only when none is.
    static func lookup(in keyring: AccountKeyring, recipient: Address?, named: Address?) async throws(KeyringError)
        -> Lookup
    {
        if let recipient, let held = try await keyring.account(recipient) { return .found(held) }
        if let named {
            if let held = try await keyring.account(named) { return .found(held) }
            return .notHeld(named, held: try await keyring.accounts().map(\.address))
        }
        let all = try await keyring.accounts()
        guard all.count <= 1 else { return .several(all.map(\.address)) }
        return all.first.map(Lookup.found) ?? .nothing
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

    /// What made a choice, as a sentence names it: `--account`, `ADM_ACCOUNT`, or the config
    /// file's `"account"`.
    public static func chooser(_ origin: SettingOrigin) -> String {
        switch origin {
        case .flag(let name), .environment(let name): name
        case .file(let path): "\"account\" in \(path)"
        case .builtIn: "nothing"
        }
    }

    /// The address an `--account` names.
    public static func account(_ text: String) throws(CLIError) -> Address {
        guard let address = try? Address(text) else {
            throw .usage("--account takes an ADAMANT address (U and digits), got \(text.quoted)")
        }
        return address
    }

    /// The keys from `account`'s passphrase, warning when it crossed the bus unencrypted.
    private static func read(
        _ account: AccountKeyring.Account, from keyring: AccountKeyring, whenLocked: WhenLocked, _ context: Context
    ) async throws(CLIError) -> KeyPair {
        do throws(KeyringError) {
            let keyPair: KeyPair
            do throws(KeyringError) {
                if case .fail = whenLocked {
                    keyPair = try await keyring.keyPair(of: account, unlocking: false)
                } else {
                    keyPair = try await keyring.keyPair(of: account)
                }
            } catch .locked(let detail) {
                guard case .wait(let interval, let log) = whenLocked else { throw .locked(detail) }
                log("the keyring is locked: waiting for it to be unlocked to read the passphrase of \(account.address)")
                let unlocked = try await keyring.unlocked(account, every: interval)
                keyPair = try await keyring.keyPair(of: unlocked, unlocking: false)
            }
            if keyring.isPlain { context.output.error("warning: " + plainWarning(account.address)) }
            return keyPair
        } catch {
            switch error {
            case .locked: throw CLIError("\(error)", exitCode: .temporaryFailure)
            case .notAPassphrase: throw .invalidInput("\(error)")
            default: throw CLIError("\(error)", exitCode: .unavailable)
            }
        }
    }

    /// What a read through a plain session let anyone on the bus see.
    public static func plainWarning(_ address: Address) -> String {
        "the keyring offers no encrypted session: the passphrase of \(address) crossed the session bus unencrypted (any program of this session could read it)"
    }
}
