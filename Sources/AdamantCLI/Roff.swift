import AdamantCore

/// A man(7) page built line by line. Text given to it is escaped, so nothing a declaration
/// says can be read as a request, an escape or a font change.
struct Roff {
    private(set) var lines: [String] = []

    /// `.NAME arg …`, each argument escaped and quoted.
    mutating func macro(_ name: String, _ arguments: String...) {
        lines.append("." + ([name] + arguments.map(Self.argument)).joined(separator: " "))
    }

    private static func argument(_ text: String) -> String {
        "\"" + escaped(text).replacing("\"", with: "\\(dq") + "\""
    }

    /// `.nh`, `.ad l`: a request, whose arguments are never quoted.
    mutating func request(_ name: String, _ arguments: String...) {
        lines.append("." + ([name] + arguments).joined(separator: " "))
    }

    /// `.TH`: the date as it is (a parser reads it), everything else escaped.
    mutating func header(_ title: String, section: String, date: String, source: String, manual: String) {
        lines.append(
            ".TH " + [title, section].map(Self.argument).joined(separator: " ") + " " + date + " "
                + [source, manual].map(Self.argument).joined(separator: " "))
    }

    /// Running text (filled: roff joins and wraps it).
    mutating func text(_ text: String) {
        let words = Self.escaped(text.trimmingSpaces).split(separator: " ", omittingEmptySubsequences: false).map {
            word in
            // A word longer than a narrow terminal's line (inline JSON) may break after a comma
            // or a slash (`\:`, which prints nothing), or roff cannot fit it.
            word.utf8.count <= 40
                ? String(word) : String(word).replacing(",", with: ",\\:").replacing("/", with: "/\\:")
        }
        let line = words.joined(separator: " ")
        if !line.isEmpty { markup(line) }
    }

    /// A line built from pieces already escaped (`bold`, `italic`, `escaped`); in fill mode
    /// (`wrapping`) it is broken at its spaces into lines of at most `width` bytes where it can be.
    mutating func markup(_ line: String, wrapping: Bool = true) {
        for piece in wrapping ? Self.wrapped(line) : [line] {
            // A text line starting with '.' or '\'' would be a request.
            lines.append(piece.first == "." || piece.first == "'" ? "\\&" + piece : piece)
        }
    }

    mutating func comment(_ text: String) { lines.append(".\\\" " + Self.escaped(text)) }

    var page: String { lines.joined(separator: "\n") }

    static let width = 80

    /// Words packed into lines; `\ ` (a space that does not break) stays inside its word.
    static func wrapped(_ line: String) -> [String] {
        var words: [String] = []
        for part in line.split(separator: " ", omittingEmptySubsequences: false) {
            if let last = words.last, last.hasSuffix("\\") {
                words[words.count - 1] += " " + part
            } else {
                words.append(String(part))
            }
        }
        var lines: [String] = []
        for word in words {
            if let last = lines.last, last.utf8.count + 1 + word.utf8.count <= width {
                lines[lines.count - 1] += " " + word
            } else {
                lines.append(word)
            }
        }
        return lines
    }

    static func bold(_ text: String) -> String { "\\fB" + escaped(text) + "\\fR" }
    static func italic(_ text: String) -> String { "\\fI" + escaped(text) + "\\fR" }

    /// Backslashes as `\e`, hyphens as `\-` (what one types, not a typographer's hyphen),
    /// anything beyond ASCII as `\[uXXXX]`, so the page reads the same in any locale; but an
    /// ellipsis is three periods and a middle dot a bullet, which groff can show in ASCII too.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            case "\u{2026}": result += "..."
            case "\u{B7}": result += "\\[bu]"
            case "\t", "\n", "\r": result += " "
            case _ where scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7f:
                result.unicodeScalars.append(scalar)
            case _ where scalar.isASCII: break  // other control characters have no place in a page
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        return result
    }
}
