/// Text as a notification shows it: one line, nothing invisible, capped. Every string a sender
/// or an address book controls goes through here before it is shown.
enum NotificationText {
    /// Characters (grapheme clusters) in a body, "…" included.
    static let bodyLimit = 500
    /// Characters in a title, "…" included.
    static let titleLimit = 100
    /// Scalars kept per character: enough for any emoji sequence, not for a tower of combining
    /// marks ("Zalgo") that would make one character kilobytes long.
    static let scalarsPerCharacter = 16
    /// UTF-8 bytes read from any one string; above the node's 10,224-byte plaintext limit, so a
    /// real message is never cut here, only hostile input.
    static let readLimit = 16_384
    /// What a line break becomes, as the iOS extension shows it.
    static let lineBreak = "↵ "

    /// `text` as one line of at most `limit` characters: line breaks become "↵ " (runs of them
    /// one), runs of white space one space, control and format characters (bidi overrides,
    /// zero-width spaces, byte-order marks) and line separators are dropped, and a longer text
    /// ends in "…". Never cuts inside a character.
    static func oneLine(_ text: String, limit: Int) -> String {
        guard limit > 0 else { return "" }
        return asciiLine(text, limit: limit) ?? unicodeLine(text, limit: limit)
    }

    /// `oneLine` for text that is all ASCII, as most messages are: byte by byte, with no
    /// grapheme breaking or Unicode property lookups (they were most of a watch's own work).
    /// Nil for any other text.
    static func asciiLine(_ text: String, limit: Int) -> String? {
        let utf8 = text.utf8
        guard utf8.count <= readLimit else { return nil }
        // Most lines need nothing done: given back as they are, with no copy.
        if utf8.count <= limit, isCleanLine(utf8) { return text }
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var line: [UInt8] = []
        line.reserveCapacity(min(utf8.count, limit) + 2)
        var count = 0
        var truncated = false
        var pendingBreak = false
        var pendingSpace = false
        for byte in utf8 {
            switch byte {
            case 0x0A...0x0D: pendingBreak = true  // the ASCII newlines ("\r\n" included)
            case 0x09, 0x20: pendingSpace = true
            case 0x00...0x1F, 0x7F: continue  // controls are dropped
            default:
                guard count < limit else {
                    truncated = true
                    break
                }
                if count > 0, pendingBreak {
                    line.append(contentsOf: lineBreak.utf8)
                    count += 2
                } else if count > 0, pendingSpace {
                    line.append(0x20)
                    count += 1
                }
                pendingBreak = false
                pendingSpace = false
                line.append(byte)
                count += 1
            }
            if truncated { break }
        }
        // A line break added before the last character can take the count past the limit.
        let shown = String(decoding: line, as: UTF8.self)
        return truncated || count > limit ? ellipsized(shown, limit: limit) : shown
    }

    /// True when `asciiLine` would give `utf8` back unchanged: printable ASCII with no space
    /// at either end or beside another.
    private static func isCleanLine(_ utf8: String.UTF8View) -> Bool {
        var previous = UInt8(ascii: " ")  // a leading space is not clean
        for byte in utf8 {
            guard byte >= 0x20, byte < 0x7F, byte != 0x20 || previous != 0x20 else { return false }
            previous = byte
        }
        return previous != 0x20
    }

    /// `oneLine` for any text, character by character.
    static func unicodeLine(_ text: String, limit: Int) -> String {
        var line = ""
        var count = 0
        var truncated = false
        var pendingBreak = false
        var pendingSpace = false
        for character in bounded(text) {
            if character.isNewline {
                pendingBreak = true
                continue
            }
            if character.isWhitespace {
                pendingSpace = true
                continue
            }
            let visible = visibleScalars(of: character)
            if visible.isEmpty { continue }
            guard count < limit else {
                truncated = true
                break
            }
            if count > 0, pendingBreak {
                line += lineBreak
                count += 2
            } else if count > 0, pendingSpace {
                line += " "
                count += 1
            }
            pendingBreak = false
            pendingSpace = false
            line.unicodeScalars.append(contentsOf: visible)
            count += 1
        }
        // A dropped control character can let a combining mark join its neighbour, so the
        // count above is an upper bound; the cut below is exact.
        guard truncated || line.count > limit else { return line }
        return ellipsized(line, limit: limit)
    }

    /// The first `limit - 1` characters of `line`, without the space or line break they may
    /// end in, and "…".
    /// `text`, made of lines already clean, cut to `limit` characters ending in "…" when it is
    /// longer; nothing else is taken out (a right-to-left sentence's isolation marks stay).
    static func capped(_ text: String, limit: Int) -> String {
        text.utf8.count <= limit || text.count <= limit ? text : ellipsized(text, limit: limit)
    }

    private static func ellipsized(_ line: String, limit: Int) -> String {
        var cut = Substring(line.prefix(limit - 1))
        while let last = cut.last, last.isWhitespace || last == "↵" { cut.removeLast() }
        return String(cut) + "…"
    }

    /// The first `readLimit` bytes of `text`, ending on a scalar boundary.
    static func bounded(_ text: String) -> Substring {
        let whole = text[...]
        guard whole.utf8.count > readLimit else { return whole }
        var bytes = 0
        var end = whole.unicodeScalars.startIndex
        for index in whole.unicodeScalars.indices {
            bytes += UTF8.width(whole.unicodeScalars[index])
            guard bytes <= readLimit else { break }
            end = whole.unicodeScalars.index(after: index)
        }
        return Substring(whole.unicodeScalars[..<end])
    }

    /// True for a scalar never shown: controls, format characters other than the joiners, line
    /// and paragraph separators.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate: true
        case .format: !isJoiner(scalar)
        default: false
        }
    }

    /// ZWNJ and ZWJ: emoji sequences and several scripts need them, so they stay, one at a time
    /// and never first (a run of them could carry hidden text).
    private static func isJoiner(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{200C}" || scalar == "\u{200D}"
    }

    private static func visibleScalars(of character: Character) -> String.UnicodeScalarView {
        var visible = String.UnicodeScalarView()
        var kept = 0
        var previous: Unicode.Scalar?
        for scalar in character.unicodeScalars where kept < scalarsPerCharacter {
            if isJoiner(scalar) {
                guard let previous, !isJoiner(previous) else { continue }
            } else if isInvisible(scalar) {
                continue
            }
            visible.append(scalar)
            previous = scalar
            kept += 1
        }
        return visible
    }
}
