public import AdamantCLI
import AdamantCore
import AdamantKeyring

extension AccountPassphrase {
    /// Where this run would take the passphrase from, said without reading it (the keyring's
    /// list of accounts is looked at, never a secret), for `adm-push config`.
    public static func source(_ arguments: ParsedArguments, _ context: Context) async throws(CLIError) -> Setting<
        String
    > {
        if let file = arguments.value(PassphraseInput.option) {
            return Setting("the file \(file)", .flag("--" + PassphraseInput.option.spec.name))
        }
        if context.passphraseVariable != nil {
            return Setting("the environment", .environment("ADM_PASSPHRASE"))
        }
        let chosen = try accountSetting(arguments, context)
        let keyring: AccountKeyring
        let found: Lookup
        do {
            keyring = try await AccountKeyring.connect(environment: context.environment)
            found = try await lookup(in: keyring, recipient: nil, named: chosen?.value)
        } catch {
            let missing =
                switch error {
                case .noSessionBus: "no session bus"
                case .noSecretService: "no Secret Service"
                default: "it fails"
                }
            return Setting("the terminal (no keyring: \(missing))", .builtIn)
        }
        let origin = chosen?.origin ?? .builtIn
        switch found {
        case .found(let account):
            let notes = [account.isLocked ? "locked" : nil, keyring.isPlain ? "unencrypted on the bus" : nil]
                .compactMap { $0 }
            let noted = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
            return Setting("the keyring, \(account.address)\(noted)", origin)
        case .notHeld(let address, _):
            return Setting("the terminal (the keyring holds none of \(address))", origin)
        case .nothing:
            return Setting("the terminal (the keyring holds none)", origin)
        case .several(let held):
            return Setting("none chosen of the keyring's \(held.map(\.description).joined(separator: ", "))", origin)
        }
    }

    /// A warning while the passphrase is read from a plain file although a keyring is there to
    /// keep it; nil otherwise.
    public static func plainFileWarning(_ arguments: ParsedArguments, _ context: Context) async -> String? {
        guard let file = arguments.value(PassphraseInput.option),
            (try? await AccountKeyring.connect(environment: context.environment)) != nil
        else { return nil }
        return
            "the passphrase is read from the plain file \(file.quoted) though a keyring is there to keep it: 'adm-push login --passphrase-file \(file.quoted)' moves it in, and the file can then be removed"
    }
}
