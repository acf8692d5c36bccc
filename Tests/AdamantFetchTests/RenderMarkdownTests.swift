import Testing

@testable import AdamantFetch

@Suite("Render: Markdown stripping")
struct RenderMarkdownTests {
    @Test(arguments: [
        // Emphasis and strike-through.
        ("**bold** text", "bold text"), ("__bold__", "bold"), ("*it*", "it"), ("_it_", "it"), ("***both***", "both"),
        ("~~gone~~ here", "gone here"), ("**a** and *b* and _c_", "a and b and c"), ("a **b _c_ d** e", "a b c d e"),
        // What is not emphasis stays.
        ("snake_case_name", "snake_case_name"), ("__init__.py", "init.py"), ("file_name_v2.txt", "file_name_v2.txt"),
        ("2 * 3 * 4", "2 * 3 * 4"), ("a*b", "a*b"), ("*unclosed", "*unclosed"), ("unopened*", "unopened*"),
        ("** spaced **", "** spaced **"), ("~single~", "~single~"), ("****", ""), ("*****x*****", "*****x*****"),
        // Code.
        ("`code *x*`", "`code *x*`"), ("a `b` c", "a `b` c"), ("``a ` b``", "`a ` b`"), ("`unclosed", "`unclosed"),
        ("```x```", "`x`"), ("```\nlet x = 1\n**y**\n```", "let x = 1\n**y**"), ("~~~swift\nz\n~~~\nafter", "z\nafter"),
        ("```\nnever closed", "never closed"),
        // Links and images.
        ("[site](https://a.b)", "site"), ("see ![a cat](c.png) here", "see a cat here"), ("[**b**](u)", "b"),
        ("[not a link]", "[not a link]"), ("[t](u", "[t](u"), ("[t] (u)", "[t] (u)"), ("[a [b](c)](d)", "a [b](d)"),
        // Blocks.
        ("# Title", "Title"), ("## **T**", "T"), ("###### six", "six"), ("####### seven", "####### seven"),
        ("#hashtag", "#hashtag"), ("> quote", "quote"), ("> > nested", "nested"), ("- item", "item"),
        ("* item", "item"),
        ("+ item", "item"), ("1. first", "first"), ("10) tenth", "tenth"), ("1.5 ADM", "1.5 ADM"),
        ("-1 degrees", "-1 degrees"),
        ("a\n---\nb", "a\n\nb"), ("* * *", ""), ("  - indented", "indented"), ("> - quoted item", "quoted item"),
        // Escapes.
        (#"\*not\*"#, "*not*"), (#"\_x\_"#, "_x_"), (#"a\b"#, #"a\b"#), (#"end\"#, #"end\"#), (#"\`x\`"#, "`x`"),
        // Nothing to strip.
        ("plain text, 100% fine!", "plain text, 100% fine!"), ("", ""), ("a\r\nb", "a\nb"),
    ])
    func strip(_ markdown: String, _ text: String) {
        #expect(Markdown.strip(markdown) == text)
    }

    /// Inputs built to make a naive stripper quadratic; each must finish at once.
    @Test(arguments: [
        HostileSample("16,000 brackets", String(repeating: "[", count: 16_000)),
        HostileSample("4,000 unclosed links", String(repeating: "[a](", count: 4_000)),
        HostileSample("5,000 unclosed emphases", String(repeating: "*a ", count: 5_000)),
        HostileSample("16,000 underscores", String(repeating: "_", count: 16_000), expected: ""),
        HostileSample(
            "backtick runs of every length", (1...170).map { String(repeating: "`", count: $0) + "x" }.joined()),
        HostileSample("8,000 unclosed images", String(repeating: "![", count: 8_000) + "]("),
        HostileSample("8,000 quote levels", String(repeating: "> ", count: 8_000) + "x", expected: "x"),
        HostileSample("4,000 fences", String(repeating: "```\n", count: 4_000), expected: ""),
    ])
    func pathologicalInputIsLinear(_ sample: HostileSample) {
        let started = ContinuousClock.now
        let stripped = Markdown.strip(sample.text)
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(stripped == sample.expected ?? sample.text)
    }

    /// A text `isPlain` lets through is returned as it is, so it must be one that every rule
    /// leaves alone: each character of ASCII (and a few beyond) in the places a rule looks.
    @Test func plainTextIsWhatEveryRuleWouldLeave() {
        let characters =
            (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) } + [
                "\t", "\n", "\r", "\r\n", "é", "\u{A0}", "\u{2028}", "🙂",
            ]
        let shapes = [
            "{}", "{}a", "a{}", "{} a", "{}{}a{}{}", "{}a{}", "a {}{}{} b", "{}{}{}", "1{} a", "12{} a", "[a]{}b)",
            "[a](b{}",
            "{}[a](b)", "a{}b", "a {}b{} c", "{}{}{}\nx\n{}{}{}", "x{}\n# y",
        ]
        var plain = 0
        for character in characters {
            for shape in shapes {
                let text = shape.replacing("{}", with: character)
                if Markdown.isPlain(text[...]) { plain += 1 }
                #expect(Markdown.strip(text) == Markdown.strippingMarkup(text[...]), "\(text.debugDescription)")
            }
        }
        #expect(plain > characters.count * shapes.count / 3)  // the short way is taken, and checked
        #expect(!Markdown.isPlain("  indented"), "indentation is trimmed")
        #expect(Markdown.isPlain("Fine, thanks! And you? (a/b) 100% <ok> & 'so' \"on\" at 1.5 ADM"))
    }

    /// The escape cannot carry the reader past the link's `]` (and on into its URL).
    @Test func anEscapeBeforeALinksBracketKeepsTheLinkWhole() {
        #expect(Markdown.strip(#"[a\](u) b"#) == #"a\ b"#)
    }
}
