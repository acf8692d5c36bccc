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
        if context.environment["ADM_PASSPHRASE"] != nil {
            return Setting("the environment", .environment("ADM_PASSPHRASE"))
        }
        let chosen = try accountSetting(arguments, context)
        let stored: [AccountKeyring.Account]
        do {
            (_, stored) = try await connected(context)
        } catch {
            let missing =
                switch error {
                case .noSessionBus: "no session bus"
                case .noSecretService: "no Secret Service"
                default: "it fails"
                }
            return Setting("the terminal (no keyring: \(missing))", .builtIn)
        }
        if let chosen {
            guard let found = stored.first(where: { $0.address == chosen.value }) else {
                return Setting("the terminal (the keyring holds none of \(chosen.value))", chosen.origin)
            }
            return Setting("the keyring, \(found.address)\(found.item.isLocked ? " (locked)" : "")", chosen.origin)
        }
        switch stored.count {
        case 0: return Setting("the terminal (the keyring holds none)", .builtIn)
        case 1:
            let found = stored[0]
            return Setting("the keyring, \(found.address)\(found.item.isLocked ? " (locked)" : "")", .builtIn)
        default:
            return Setting(
                "none chosen of the keyring's \(stored.map(\.address.description).joined(separator: ", "))", .builtIn)
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
