import Testing

@testable import AdamantFetch

/// The catalog file msgfmt writes, read without gettext: found by binary search, its plural rule
/// evaluated as gettext evaluates it, and any damaged or hostile file refused, never read past.
@Suite("Wording: the catalog file and its plural rule")
struct CatalogFileTests {
    /// A little-endian .mo of `entries` (msgid → msgstr; NUL-joined for plurals), sorted by
    /// msgid as msgfmt sorts them.
    static func file(_ entries: [(String, String)]) -> [UInt8] {
        let sorted = entries.map { (Array($0.0.utf8), Array($0.1.utf8)) }.sorted {
            $0.0.lexicographicallyPrecedes($1.0)
        }
        func word(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let originalsAt = 28
        let translationsAt = originalsAt + 8 * sorted.count
        var strings: [UInt8] = []
        var originals: [UInt8] = []
        var translations: [UInt8] = []
        let stringsAt = translationsAt + 8 * sorted.count
        for (original, _) in sorted {
            originals += word(original.count) + word(stringsAt + strings.count)
            strings += original + [0]
        }
        for (_, translation) in sorted {
            translations += word(translation.count) + word(stringsAt + strings.count)
            strings += translation + [0]
        }
        return word(0x9504_12de) + word(0) + word(sorted.count) + word(originalsAt) + word(translationsAt) + word(0)
            + word(0) + originals + translations + strings
    }

    static let russian = file([
        (
            "",
            "Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"
        ),
        ("New message", "Новое сообщение"),
        ("%1$s chat\u{0}%1$s chats", "%1$s чат\u{0}%1$s чата\u{0}%1$s чатов"),
        ("Open", "Открыть"),
    ])

    @Test func textsAreFoundAndFormsPicked() throws {
        let catalog = try MessageCatalog(bytes: Self.russian)
        #expect(catalog.text("New message") == "Новое сообщение" && catalog.text("Open") == "Открыть")
        #expect(catalog.text("Closed") == nil && catalog.text("New messag") == nil)
        let forms = [1, 2, 5, 11, 21, 22, 111].map { catalog.text("%1$s chat", plural: "%1$s chats", count: $0) }
        #expect(forms == ["%1$s чат", "%1$s чата", "%1$s чатов", "%1$s чатов", "%1$s чат", "%1$s чата", "%1$s чатов"])
        #expect(catalog.text("%1$s chat", plural: "%1$s things", count: 2) == nil)
    }

    /// A catalog whose rule picks a form it does not have gives none (and the caller English).
    @Test func aFormTheCatalogLacksIsNone() throws {
        let catalog = try MessageCatalog(
            bytes: Self.file([("", "Plural-Forms: nplurals=3; plural=n;\n"), ("a\u{0}b", "x\u{0}y")]))
        #expect(catalog.text("a", plural: "b", count: 1) == "y" && catalog.text("a", plural: "b", count: 2) == nil)
    }

    /// Every prefix of a good file, and the file with each of its table's words made huge, is
    /// refused or read within its bytes; none traps.
    @Test func damagedFilesAreRefusedNeverOverread() {
        let good = Self.russian
        for length in 0..<good.count {
            if let catalog = try? MessageCatalog(bytes: Array(good.prefix(length))) {
                _ = catalog.text("New message")
                _ = catalog.text("%1$s chat", plural: "%1$s chats", count: 3)
            }
        }
        for offset in stride(from: 8, to: 60, by: 4) {
            var damaged = good
            for index in offset..<(offset + 4) { damaged[index] = 0xff }
            if let catalog = try? MessageCatalog(bytes: damaged) { _ = catalog.text("Open") }
        }
        #expect(throws: MessageCatalog.Malformed.self) {
            try MessageCatalog(bytes: Array("not a catalog at all, no".utf8))
        }
        #expect(throws: MessageCatalog.Malformed.self) { try MessageCatalog(bytes: []) }
    }

    @Test(
        arguments: [
            // Each language's own, from its catalog's header.
            ("(n != 1)", [0: 1, 1: 0, 2: 1, 5: 1]),
            ("(n > 1)", [0: 0, 1: 0, 2: 1]),
            (
                "(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)",
                [1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 12: 2, 14: 2, 21: 0, 22: 1, 25: 2, 111: 2, 1001: 0]
            ),
            (
                "(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)",
                [0: 0, 1: 1, 2: 2, 3: 3, 10: 3, 11: 4, 99: 4, 100: 5, 102: 5, 103: 3]
            ),
            // Precedence, unary not and its difference from !=, wrapping and division by zero.
            ("1 + 2 * 3", [0: 7]), ("(1 + 2) * 3", [0: 9]), ("!n", [0: 1, 3: 0]),
            ("n != 2 ? !!n : 7", [0: 0, 2: 7, 5: 1]),
            ("n / 0 + n % 0", [9: 0]), ("0 - 1 > n", [5: 1]), ("n<=1", [1: 1, 2: 0]), ("n >= 2", [1: 0, 2: 1]),
        ] as [(String, [UInt64: Int])])
    func rulesAreEvaluatedAsGettextDoes(_ expression: String, _ forms: [UInt64: Int]) throws {
        let rule = try #require(PluralRule(expression: expression))
        for (n, form) in forms { #expect(rule.form(for: n) == form, "\(expression) for \(n)") }
    }

    @Test(arguments: [
        "", "n +", "(n", "n)", "n ? 1", "n ? 1 :", "x", "n == = 1", "18446744073709551616",
        String(repeating: "(", count: 70) + "n" + String(repeating: ")", count: 70),
        String(repeating: "!", count: 70) + "n", String(repeating: "n+", count: 600) + "n",
    ])
    func whatIsNoRuleIsRefused(_ expression: String) {
        #expect(PluralRule(expression: expression) == nil)
    }

    @Test func theHeaderNamesTheRule() {
        #expect(
            PluralRule(header: "Project-Id-Version: x\nPlural-Forms: nplurals=2; plural=(n > 1);\n")
                == PluralRule(expression: "(n > 1)"))
        #expect(PluralRule(header: "Content-Type: text/plain\n") == nil)
    }
}
