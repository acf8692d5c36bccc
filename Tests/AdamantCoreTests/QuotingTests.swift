import AdamantCore
import Testing

@Suite("Quoting what is shown")
struct QuotingTests {
    /// A closed isolate is kept, nested ones too; one left open, a close with none open, and
    /// every other format or control character are escaped as ever.
    @Test(arguments: [
        ("a \u{2068}2.5 ADM\u{2069} b", "a \u{2068}2.5 ADM\u{2069} b"),
        ("\u{2067}x \u{2066}y\u{2069}\u{2069}", "\u{2067}x \u{2066}y\u{2069}\u{2069}"),
        ("open \u{2068}never closed", "open \\u{2068}never closed"),
        ("close\u{2069} \u{2068}kept\u{2069}", "close\\u{2069} \u{2068}kept\u{2069}"),
        ("\u{2068}\u{202E}evil\u{2069}", "\u{2068}\\u{202E}evil\u{2069}"),
        ("line\nbreak\u{1B}", "line\\nbreak\\u{1B}"),
    ])
    func closedIsolatesAreKept(text: String, shown: String) {
        #expect(text.escapingControlCharactersButIsolates == shown)
        #expect(!text.escapingControlCharacters.unicodeScalars.contains { (0x2066...0x2069).contains($0.value) })
    }
}
