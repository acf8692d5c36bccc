import AdamantCore
import Testing

@testable import AdamantFetch

/// One line, nothing invisible, within the caps: for the body and for the title.
@Suite("Render: text sanitising")
struct RenderTextTests {
    /// NUL, escape, bidi override, isolate and marks, zero-width space, BOM, soft hyphen, DEL, a
    /// C1 control, a tag character, Mongolian vowel separator: all of them invisible, so all go.
    /// (Line breaks are no hidden characters: they become "↵ ", below.)
    static let hostile = "\u{0}\u{1B}\u{202E}\u{2066}\u{200E}\u{200B}\u{FEFF}\u{AD}\u{7F}\u{9B}\u{E0041}\u{180E}\u{61C}"
    /// The same in JSON escapes, as a rich plaintext carries them.
    static let hostileEscaped = #"\u0000\u001b\u202e\u2066\u200e\u200b\ufeff\u00ad\u007f\u009b\udb40\udc41\u180e\u061c"#

    @Test(arguments: [
        ("a\nb", "a↵ b"), ("a\r\nb", "a↵ b"), ("a\rb", "a↵ b"), ("a\u{2028}b", "a↵ b"), ("a\u{85}b", "a↵ b"),
        ("a\n\n \n\tb", "a↵ b"), ("\n\na\n\n", "a"), ("a\tb", "a b"), ("a  \u{3000} b", "a b"), ("  a  ", "a"),
        ("x\u{202E}gnp.exe", "xgnp.exe"), ("\u{2067}abc\u{2069}", "abc"), ("a\u{0}b", "ab"), ("a\u{200B}b", "ab"),
        ("\u{FEFF}hi", "hi"), ("sh\u{AD}y", "shy"), ("\u{1B}[2Jclear", "[2Jclear"), ("a\u{E0041}\u{E0042}", "a"),
        ("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} family", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} family"),
        ("👍🏽🇺🇦", "👍🏽🇺🇦"), ("می\u{200C}خواهم", "می\u{200C}خواهم"), ("e\u{301}", "\u{E9}"),
        ("a\u{200D}\u{200D}\u{200D}\u{200C}b", "a\u{200D}b"), ("\u{200D}x", "x"), ("", ""), ("\u{202E}\n\u{0}", ""),
    ])
    func oneLine(_ text: String, _ expected: String) {
        #expect(NotificationText.oneLine(text, limit: 100) == expected)
    }

    @Test func aLongLineEndsInAnEllipsisWithinTheLimit() {
        #expect(
            NotificationText.oneLine(String(repeating: "a", count: 500), limit: 500)
                == String(repeating: "a", count: 500))
        #expect(
            NotificationText.oneLine(String(repeating: "a", count: 501), limit: 500) == String(
                repeating: "a", count: 499) + "…")
        // A cut at a line break or a space drops it rather than end in "↵…".
        #expect(
            NotificationText.oneLine(String(repeating: "a", count: 498) + "\nbbbbbbbbbb", limit: 500) == String(
                repeating: "a", count: 498) + "…")
        #expect(
            NotificationText.oneLine(String(repeating: "a", count: 498) + " bbbbbbbbbb", limit: 500) == String(
                repeating: "a", count: 498) + "…")
    }

    @Test func aCutNeverSplitsACharacter() {
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        let flag = "\u{1F1FA}\u{1F1E6}"
        let cut = NotificationText.oneLine(String(repeating: family + flag, count: 400), limit: 500)
        #expect(cut.count == 500)
        #expect(cut.hasSuffix(family + "…"))
        #expect(cut.dropLast().allSatisfy { $0 == Character(family) || $0 == Character(flag) })
    }

    @Test func aTowerOfCombiningMarksIsKeptShort() {
        let zalgo = "a" + String(repeating: "\u{301}", count: 5_000) + "b"
        let line = NotificationText.oneLine(zalgo, limit: 100)
        #expect(line.count == 2)
        #expect(line.unicodeScalars.count == NotificationText.scalarsPerCharacter + 1)
    }

    @Test func aHostileTitleIsOneCleanLine() {
        let notification = NotificationRenderer.render(
            Fixture.text("hi"), title: "Mal\u{202E}lory\nthe\u{0}\u{2066}Admin" + Self.hostile)
        #expect(notification.title == "Mallory↵ theAdmin")
        #expect(hiddenScalars(in: notification.title).isEmpty)
    }

    @Test func aLongTitleIsCut() {
        let notification = NotificationRenderer.render(
            Fixture.text("hi"), title: String(repeating: "Ab", count: 10_000))
        #expect(notification.title.count == NotificationRenderer.titleLimit)
        #expect(notification.title == String(repeating: "Ab", count: 49) + "A…")
    }

    @Test(arguments: ["", "   ", "\u{202E}\u{200B}", "\n\n"])
    func aTitleOfNothingVisibleIsNamed(_ title: String) {
        #expect(NotificationRenderer.render(Fixture.text("hi"), title: title).title == "Unknown contact")
        #expect(NotificationRenderer.fallback(type: .chat, amount: 0, title: title).title == "Unknown contact")
    }

    /// Every string field that reaches the body, with hostile characters around its text.
    static let fieldCases: [(String, MessageContent, String)] = {
        let h = hostileEscaped
        return [
            ("chat text", Fixture.text("a\(hostile)b"), "ab"),
            (
                "transfer comment", Fixture.text("\(hostile)thanks\(hostile)", amount: 100_000_000),
                "Sent you 1 ADM: thanks"
            ),
            (
                "crypto comments", Fixture.rich(#"{"type":"eth_transaction","amount":"1","comments":"x\#(h)y"}"#),
                "Sent you 1 ETH: xy"
            ),
            ("reply text", Fixture.rich(#"{"replyto_id":"1","reply_message":"x\#(h)y"}"#), "xy"),
            (
                "ADM reply comment", Fixture.rich(#"{"replyto_id":"1","reply_message":"x\#(h)y"}"#, amount: 1),
                "Sent you 0.00000001 ADM: xy"
            ),
            ("reaction", Fixture.rich(#"{"reactto_id":"1","react_message":"\#(h)👍\#(h)"}"#), "Reacted 👍"),
            ("file comment and name", Fixture.rich(#"{"files":[{"name":"a.png\#(h)"}],"comment":"x\#(h)y"}"#), "📄 xy"),
            ("text_fallback", Fixture.rich(#"{"type":"poll","text_fallback":"x\#(h)y"}"#), "xy"),
            ("ticker", Fixture.rich(#"{"type":"e\#(h)th_transaction","amount":"1","text_fallback":"fb"}"#), "fb"),
            ("amount", Fixture.rich(#"{"type":"eth_transaction","amount":"1\#(h)","text_fallback":"fb"}"#), "fb"),
        ]
    }()

    @Test(arguments: fieldCases)
    func hostileCharactersInAField(_ field: String, _ content: MessageContent, _ body: String) {
        let notification = NotificationRenderer.render(content, title: "A\(Self.hostile)")
        #expect(notification.body == body, "\(field)")
        #expect(hiddenScalars(in: notification.body).isEmpty, "\(field)")
        #expect(notification.title == "A")
    }

    @Test func theBodyOfEveryShapeHasNoHiddenCharacters() {
        for row in RenderShapeTests.cases {
            let notification = NotificationRenderer.render(row.content, title: row.title)
            #expect(hiddenScalars(in: notification.body).isEmpty, "\(row.name)")
            #expect(!notification.body.contains("\n"), "\(row.name)")
        }
    }

    @Test func aTextIsReadOnlyToTheReadLimit() {
        let text = String(repeating: "\u{E9}", count: NotificationText.readLimit)
        let bounded = NotificationText.bounded(text)
        #expect(bounded.utf8.count == NotificationText.readLimit)
        #expect(bounded.count == NotificationText.readLimit / 2)
        // Never inside a scalar: one byte over a two-byte boundary rounds down.
        #expect(NotificationText.bounded("a" + text).utf8.count == NotificationText.readLimit - 1)
    }
}

@Suite("Render: the ASCII fast path")
struct RenderASCIITests {
    /// The byte-by-byte path gives exactly what the character-by-character one gives, over
    /// random ASCII (controls, "\r\n", runs of spaces and breaks) and every kind of limit.
    @Test func asciiTextRendersAsTheUnicodePathRendersIt() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "a", "Z", "7", " ", "  ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", "\u{00}", "\u{1B}", "\u{7F}",
            "\u{1F}", "word", "!", "~",
        ]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let limit = Int.random(in: 1...30, using: &generator)
            let fast = NotificationText.asciiLine(text, limit: limit)
            #expect(fast == NotificationText.unicodeLine(text, limit: limit), "\(text.debugDescription) at \(limit)")
            if fast == nil { Issue.record("ASCII text not taken by the fast path: \(text.debugDescription)") }
        }
    }

    /// A clean line comes back as it is; one character over the limit, or one space too many,
    /// and it does not.
    @Test func aCleanLineIsGivenBackAsItIs() {
        let line = "Hello, world! (a clean line)"
        #expect(NotificationText.oneLine(line, limit: line.count) == line)
        #expect(NotificationText.oneLine(line, limit: line.count - 1) == "Hello, world! (a clean lin…")
        #expect(NotificationText.oneLine(" " + line, limit: 100) == line)
        #expect(NotificationText.oneLine(line + " ", limit: 100) == line)
        #expect(NotificationText.oneLine("Hello,  world", limit: 100) == "Hello, world")
        #expect(NotificationText.oneLine("Hello,\u{7F}world", limit: 100) == "Hello,world")
        #expect(NotificationText.oneLine("Hello,\tworld", limit: 100) == "Hello, world")
        #expect(NotificationText.oneLine("", limit: 100) == "")
        #expect(NotificationText.oneLine(" ", limit: 100) == "")
    }

    @Test func textBeyondASCIIIsLeftToTheUnicodePath() {
        #expect(NotificationText.asciiLine("caf\u{e9}", limit: 10) == nil)
        #expect(
            NotificationText.asciiLine(String(repeating: "a", count: NotificationText.readLimit + 1), limit: 10) == nil)
        #expect(NotificationText.oneLine("caf\u{e9}\u{202E}", limit: 10) == "caf\u{e9}")
    }
}
