import AdamantCore

/// Quoting back arguments a command did not expect, without ever repeating a passphrase that
/// was typed in the wrong place (`adm-push wrap track …`).
public enum StrayArguments {
    /// The first of `arguments`, quoted; or a note that it is withheld when they hold two or
    /// more words of the BIP39 list (one alone is an ordinary word, such as 'extra').
    public static func quotingFirst(of arguments: some Collection<String>) -> String {
        guard let first = arguments.first else { return "''" }
        return BIP39.mayHoldAPassphrase(arguments)
            ? "(withheld: resembles a passphrase, which is not an argument)" : first.quoted
    }
}
