/// Markdown reduced to the text a reader sees, as the clients render chat messages (AIP-4). A
/// small subset, one pass per line and linear in the text: fences, headings, block quotes,
/// list markers and rules (here), then emphasis, code, links and escapes (`MarkdownInline`).
/// Anything else stays as written; an unmatched marker is text.
enum Markdown {
    static func strip(_ text: String) -> String {
        let text = NotificationText.bounded(text)
        return isPlain(text) ? String(text) : strippingMarkup(text)
    }

    /// True when no rule can apply, as for most messages: one line, with no inline marker
    /// anywhere and no indentation or block marker at its start. Such a text is shown as it
    /// is, without the pass over its scalars.
    static func isPlain(_ text: Substring) -> Bool {
        let utf8 = text.utf8
        if let first = utf8.first, opensBlock(first) { return false }
        return !utf8.contains(where: marksInlineOrBreaksLine)
    }

    private static func opensBlock(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ">"), UInt8(ascii: "#"), UInt8(ascii: "-"),
            UInt8(ascii: "+"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }

    /// A line break, or a mark an inline rule starts at anywhere in a line (`*`, `_` and `~`
    /// also start block rules). `!` and `(` need a `[` to be more than text.
    private static func marksInlineOrBreaksLine(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "["),
            UInt8(ascii: "*"),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Every rule, line by line.
    static func strippingMarkup(_ text: Substring) -> String {
        var output = String.UnicodeScalarView()
        var inFence = false
        var isFirstLine = true
        for line in lines(of: text) {
            if isFence(line, closing: inFence) {
                inFence.toggle()
                continue
            }
            if !isFirstLine { output.append("\n") }
            isFirstLine = false
            if inFence {
                output.append(contentsOf: line)
            } else if !isThematicBreak(line) {
                output.append(contentsOf: MarkdownInline.text(of: blockContent(of: line)))
            }
        }
        return String(output)
    }

    private typealias Line = ArraySlice<Unicode.Scalar>

    private static func lines(of text: Substring) -> [Line] {
        let scalars = Array(text.unicodeScalars)
        return scalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? line.dropLast() : line
        }
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    private static func trimmingIndent(_ line: Line) -> Line { line.drop(while: isBlank) }

    /// ```` ``` ```` or `~~~` opens a fenced block; a backtick after the opening run makes it
    /// inline code instead (```` ```x``` ````). Inside a block, either run closes it.
    private static func isFence(_ line: Line, closing: Bool) -> Bool {
        let trimmed = trimmingIndent(line)
        if trimmed.starts(with: ["~", "~", "~"]) { return true }
        guard trimmed.starts(with: ["`", "`", "`"]) else { return false }
        return closing || !trimmed.drop(while: { $0 == "`" }).contains("`")
    }

    /// `---`, `***`, `___` (spaces allowed between): a rule, shown as nothing.
    private static func isThematicBreak(_ line: Line) -> Bool {
        let marks = line.filter { !isBlank($0) }
        guard marks.count >= 3, let mark = marks.first, "-*_".unicodeScalars.contains(mark) else { return false }
        return marks.allSatisfy { $0 == mark }
    }

    /// The line without its block markers: block quotes (`>`, nested), then one heading
    /// (`#` to `######`) or list marker (`-`, `*`, `+`, `1.`, `1)`).
    private static func blockContent(of line: Line) -> Line {
        var rest = trimmingIndent(line)
        while rest.first == ">" { rest = trimmingIndent(rest.dropFirst()) }
        let hashes = rest.prefix(while: { $0 == "#" }).count
        if (1...6).contains(hashes), rest.dropFirst(hashes).first.map(isBlank) ?? true {
            return trimmingIndent(rest.dropFirst(hashes))
        }
        if let marker = rest.first, "-*+".unicodeScalars.contains(marker), rest.dropFirst().first.map(isBlank) == true {
            return trimmingIndent(rest.dropFirst())
        }
        let digits = rest.prefix(while: { ("0"..."9").contains($0) }).count
        let afterDigits = rest.dropFirst(digits)
        if (1...9).contains(digits), let mark = afterDigits.first, mark == "." || mark == ")",
            afterDigits.dropFirst().first.map(isBlank) == true
        {
            return trimmingIndent(afterDigits.dropFirst())
        }
        return rest
    }
}
