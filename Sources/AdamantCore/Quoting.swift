/// The most characters of a value that a message quotes back: more than any path or URL a
/// person would write.
public let quotedLimit = 256

/// Quoting input back safely: for messages that repeat what a user or a node wrote.
extension StringProtocol {
    /// The value in single quotes with its control characters escaped: how every message quotes
    /// back what it was given, so input can never start a new line or move the cursor. A value
    /// holding two or more BIP39 words is not repeated at all: it may be a passphrase typed in
    /// the wrong place (`--passphrase-file "wrap track …"`). The markers hold fewer than two
    /// BIP39 words, so they never look like a passphrase themselves. A value longer than
    /// `quotedLimit` characters is cut there, with its length said, so an error stays one
    /// readable line whatever was given (a 120 KB argument).
    public var quoted: String {
        if BIP39.mayHoldAPassphrase([String(self)]) { return "(withheld: resembles a passphrase)" }
        let length = count
        guard length > quotedLimit else { return "'" + escapingControlCharacters + "'" }
        return "'" + prefix(quotedLimit).escapingControlCharacters + "…' (\(length) characters)"
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
