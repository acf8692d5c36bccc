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
    public var escapingControlCharacters: String { escaping(keeping: []) }

    /// As `escapingControlCharacters`, but each isolate (U+2066, U+2067, U+2068) that a U+2069
    /// closes is kept with it: the marks a right-to-left sentence puts around each value it
    /// quotes. An isolate cannot move what lies outside it, so a kept pair changes only how
    /// its own text reads, whoever wrote it; one left open, or a close with no open, is escaped
    /// as any other format character.
    public var escapingControlCharactersButIsolates: String {
        var open: [Int] = []
        var kept: Set<Int> = []
        for (index, scalar) in unicodeScalars.enumerated() {
            switch scalar.value {
            case 0x2066...0x2068: open.append(index)
            case 0x2069:
                if let opener = open.popLast() { kept.formUnion([opener, index]) }
            default: break
            }
        }
        return escaping(keeping: kept)
    }

    /// The text with every control and format character escaped but those at the scalar
    /// offsets `kept`.
    private func escaping(keeping kept: Set<Int>) -> String {
        var text = ""
        for (index, scalar) in unicodeScalars.enumerated() {
            if kept.contains(index) {
                text.unicodeScalars.append(scalar)
                continue
            }
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
