import AdamantCore

extension StringProtocol {
    /// The value in single quotes with its control characters escaped: how every message quotes
    /// back what it was given, so input can never start a new line or move the cursor. A value
    /// holding two or more BIP39 words is not repeated at all: it may be a passphrase typed in
    /// the wrong place (`--passphrase-file "wrap track …"`). The markers hold fewer than two
    /// BIP39 words, so they never look like a passphrase themselves.
    public var quoted: String {
        StrayArguments.mayHoldAPassphrase([String(self)])
            ? "(withheld: resembles a passphrase)" : "'" + escapingControlCharacters + "'"
    }

    /// Control, format (bidirectional overrides) and line-separator characters as `\n`, `\r`,
    /// `\t` or `\u{…}`; everything else unchanged.
    public var escapingControlCharacters: String {
        var text = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator:
                    text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default:
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text
    }
}

/// Quoting back arguments a command did not expect, without ever repeating a passphrase that
/// was typed in the wrong place (`adm-push wrap track …`).
public enum StrayArguments {
    /// The first of `arguments`, quoted; or a note that it is withheld when they hold two or
    /// more words of the BIP39 list (one alone is an ordinary word, such as 'extra').
    public static func quotingFirst(of arguments: some Collection<String>) -> String {
        guard let first = arguments.first else { return "''" }
        return mayHoldAPassphrase(arguments) ? "(withheld: resembles a passphrase, which is not an argument)" : first.quoted
    }

    public static func mayHoldAPassphrase(_ arguments: some Collection<String>) -> Bool {
        let words = arguments.lazy.flatMap { $0.split(whereSeparator: \.isWhitespace) }
        return words.filter { bip39Words.contains($0.lowercased()) }.prefix(2).count == 2
    }

    private static let bip39Words = Set(BIP39.wordList)
}
