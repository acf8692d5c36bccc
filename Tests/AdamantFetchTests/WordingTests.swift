import AdamantCore
import Foundation
import Testing

@testable import AdamantFetch

/// Which language the environment asks for, as a desktop program reads it, and how values go
/// into a translated sentence. Pure: no catalog is read.
@Suite("Wording: the language and the sentence")
struct WordingLanguageTests {
    static let catalogs: Set = ["ar", "de", "fr", "it", "ru"]

    @Test(
        arguments: [
            ([:], nil),
            (["LANG": "ru_RU.UTF-8"], "ru"),
            (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"], "fr"),
            (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LC_ALL": "it_IT.UTF-8"], "it"),
            (["LANG": "ru_RU.UTF-8", "LC_ALL": ""], "ru"),
            (["LANG": "ru_RU.UTF-8", "LANGUAGE": "ar:de"], "ar"),
            // A language with no catalog is passed over, as gettext passes it over.
            (["LANG": "ru_RU.UTF-8", "LANGUAGE": "pt_BR:de"], "de"),
            // English is the texts as written: it ends the search, where gettext would go on.
            (["LANG": "ru_RU.UTF-8", "LANGUAGE": "en_GB:ru"], nil),
            (["LANG": "en_US.UTF-8"], nil),
            // In the C locale gettext ignores LANGUAGE, and so does this.
            (["LANG": "C", "LANGUAGE": "ru"], nil),
            (["LC_ALL": "C.UTF-8", "LANGUAGE": "ru"], nil),
            (["LANG": "POSIX", "LANGUAGE": "ru"], nil),
            (["LANG": "sr_RS@latin"], nil),
            (["LANG": "ar_EG.UTF-8@modifier"], "ar"),
            (["LANG": "../../etc/passwd"], nil),
        ] as [([String: String], String?)])
    func theLocaleChoosesTheLanguage(_ environment: [String: String], _ expected: String?) {
        #expect(Wording.language(environment, has: Self.catalogs.contains) == expected)
    }

    @Test(arguments: [
        ("Sent you %1$s", ["1.5 ADM"], "Sent you 1.5 ADM"),
        ("%2$s ← %1$s", ["a", "b"], "b ← a"),
        ("100%% %1$s", ["sure"], "100% sure"),
        ("%1$s%", ["x"], "x%"),
        ("%3$s and %1$d", ["x"], " and %1$d"),
        ("no values", ["x"], "no values"),
        // A value is put in as it is: a "%1$s" inside it is not filled again.
        ("%1$s, %2$s", ["%2$s", "y"], "%2$s, y"),
    ])
    func valuesGoInByPosition(_ template: String, _ values: [String], _ filled: String) {
        #expect(Wording.fill(template, values) == filled)
    }

    @Test func englishIsTheTextsAsWritten() {
        let english = Wording.english
        #expect(english.text(.sentYou, "1.5 ADM") == "Sent you 1.5 ADM")
        #expect(
            english.counted(.newMessages, 1) == "1 new message"
                && english.counted(.newMessages, 12345) == "12345 new messages")
        #expect(english.number("12345.5") == "12345.5")
        #expect(english.openAction == "Open" && english.muteAction == "Mute 1 hour")
    }
}

/// Whether this machine has the compiled catalogs and the locales they are tested under.
enum TranslationCatalogs {
    static let ready =
        FileManager.default.fileExists(
            atPath: Wording.catalogDirectory(environment: [:]) + "/ru/LC_MESSAGES/adm-push.mo")
        && Wording(environment: ["LANG": "ru_RU.UTF-8"]).language == "ru"
}

/// The catalogs of po/ as scripts/locales compiles them beside the products, read under each
/// language's locale as its user has it: every shape's words, the plural forms, the numbers,
/// and Arabic's isolated values.
@Suite(
    "Wording: the translations",
    .enabled(
        if: TranslationCatalogs.ready || ProcessInfo.processInfo.environment["CI"] != nil,
        "no compiled catalogs or locales here (scripts/test compiles them; install-deps.sh makes the locales)"))
struct WordingTranslationTests {
    static func wording(_ locale: String) -> Wording {
        Wording(environment: ["LANG": locale])
    }

    static func body(_ content: MessageContent, _ wording: Wording) -> String {
        NotificationRenderer.render(content, title: "Alice", wording: wording).body
    }

    @Test(arguments: ["ru_RU.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8", "it_IT.UTF-8", "ar_EG.UTF-8"])
    func eachLanguageHasEveryTextTranslated(_ locale: String) {
        let wording = Self.wording(locale)
        #expect(wording.language == String(locale.prefix(2)))
        // Only a join that is the same in the language may stay as English writes it.
        for phrase in Phrase.allCases where phrase != .bothCounts {
            #expect(wording.text(phrase, "x", "y") != Wording.english.text(phrase, "x", "y"), "\(locale): \(phrase)")
        }
        // French writes "5 notifications" as English does.
        for phrase in CountedPhrase.allCases where !(wording.language == "fr" && phrase == .notifications) {
            #expect(wording.counted(phrase, 5) != Wording.english.counted(phrase, 5), "\(locale): \(phrase)")
        }
    }

    /// Every shape with words of the app's, in each language: not the English sentence, the
    /// sender's words kept as written, the amount written with the locale's decimal point.
    @Test(arguments: [
        ("ru_RU.UTF-8", "2,5"), ("de_DE.UTF-8", "2,5"), ("fr_FR.UTF-8", "2,5"), ("it_IT.UTF-8", "2,5"),
        ("ar_EG.UTF-8", "2.5"),
    ])
    func everyShapeIsToldInTheLanguage(_ locale: String, _ amount: String) {
        let wording = Self.wording(locale)
        let adm = Int64(250_000_000)
        let eth = #"{"type":"eth_transaction","amount":"0.002","hash":"0xfa46","comments":"lunch"}"#
        let shapes: [(MessageContent, [String])] = [
            (Fixture.transfer(adm), [amount]), (Fixture.transfer(adm, incoming: false), [amount]),
            (Fixture.text("tickets", amount: adm), [amount, "tickets"]),
            (Fixture.text("tickets", amount: adm, incoming: false), [amount, "tickets"]),
            // The sender's crypto amount, a plain number, is written the locale's way too.
            (Fixture.rich(eth), [amount.contains(",") ? "0,002" : "0.002", "ETH", "lunch"]),
            (Fixture.rich(eth, incoming: false), ["ETH", "lunch"]),
            (Fixture.text("hello", incoming: false), ["hello"]), (Fixture.text(""), []),
            (Fixture.text("", incoming: false), []),
            (Fixture.rich(#"{"replyto_id":"1","reply_message":"sure"}"#, incoming: false), ["sure"]),
            (Fixture.rich(#"{"reactto_id":"1","react_message":"👍"}"#), ["👍"]),
            (Fixture.rich(#"{"reactto_id":"1","react_message":"👍"}"#, incoming: false), ["👍"]),
            (Fixture.rich(#"{"reactto_id":"1","react_message":""}"#), []),
            (Fixture.rich(#"{"reactto_id":"1","react_message":""}"#, incoming: false), []),
            (Fixture.rich(#"{"type":"unknown_thing"}"#), []),
            (Fixture.rich(#"{"type":"unknown_thing"}"#, incoming: false), []),
            (Fixture.text("x", chatType: .signal), []), (Fixture.text("x", chatType: .signal, incoming: false), []),
        ]
        for (content, kept) in shapes {
            let body = Self.body(content, wording)
            let english = Self.body(content, .english)
            #expect(body != english, "\(locale): \(english) is not translated")
            for value in kept { #expect(body.contains(value), "\(locale): \(body) lost \(value)") }
        }
        let fallback = NotificationRenderer.fallback(type: .transfer, amount: adm, title: "", wording: wording)
        #expect(fallback.body != "New transfer" && fallback.title != "Unknown contact")
    }

    @Test func russianShapes() {
        let ru = Self.wording("ru_RU.UTF-8")
        #expect(Self.body(Fixture.transfer(Fixture.oneAndAHalfADM), ru) == "Вы получили 1,5 ADM")
        #expect(Self.body(Fixture.transfer(Fixture.oneAndAHalfADM, incoming: false), ru) == "Вы отправили 1,5 ADM")
        #expect(
            Self.body(Fixture.text("спасибо", amount: 1_234_500_000_000), ru)
                == "Вы получили 12\u{202F}345 ADM: спасибо")
        #expect(Self.body(Fixture.text("Привет", incoming: false), ru) == "Вы: Привет")
        #expect(Self.body(Fixture.text("Привет"), ru) == "Привет", "the sender's words as they are")
        #expect(Self.body(Fixture.rich(#"{"reactto_id":"1","react_message":"👍"}"#), ru) == "Реакция 👍")
        #expect(
            NotificationRenderer.fallback(type: .chat, amount: 0, title: "", wording: ru)
                == RenderedNotification(kind: .message, title: "Неизвестный контакт", body: "Новое сообщение"))
        #expect(ru.openAction == "Открыть" && ru.muteAction == "Отключить на 1 час")
    }

    /// Russian has three plural forms: 1, 21 (one); 2–4, 22 (few); 5–20, 11–14, 25 (many).
    @Test(arguments: [
        (1, "1 новое сообщение"), (2, "2 новых сообщения"), (4, "4 новых сообщения"), (5, "5 новых сообщений"),
        (11, "11 новых сообщений"), (12, "12 новых сообщений"), (21, "21 новое сообщение"), (22, "22 новых сообщения"),
        (25, "25 новых сообщений"), (111, "111 новых сообщений"), (1001, "1\u{202F}001 новое сообщение"),
    ])
    func russianCountsTakeTheirForm(_ count: Int, _ line: String) {
        #expect(Self.wording("ru_RU.UTF-8").counted(.newMessages, count) == line)
    }

    @Test func theQuietSummaryAndTheCountLineAreOneSentenceEach() {
        let ru = Self.wording("ru_RU.UTF-8")
        #expect(
            ru.text(.quietSummary, ru.counted(.notifications, 5), ru.counted(.inChats, 3))
                .hasPrefix("5 уведомлений в 3 чатах"))
        let line = ChatBubbles.countLine(.init(messages: 3, transfers: 1), ru)
        #expect(line == "3 новых сообщения, 1 перевод")
        let de = Self.wording("de_DE.UTF-8")
        #expect(ChatBubbles.countLine(.init(messages: 2, transfers: 0), de) == "2 neue Nachrichten")
    }

    /// Arabic: six plural forms, and every value put into a sentence (an amount, a count, a
    /// comment) isolated so it reads whole inside right-to-left text.
    @Test func arabicIsolatesTheValuesItPutsIn() {
        let ar = Self.wording("ar_EG.UTF-8")
        let body = Self.body(Fixture.text("thanks", amount: Fixture.oneAndAHalfADM), ar)
        #expect(body.contains("\u{2068}1.5 ADM\u{2069}") && body.contains("\u{2068}thanks\u{2069}"), "\(body)")
        #expect(!body.contains("Sent"))
        let forms = [0, 1, 2, 3, 11, 100].map { ar.counted(.notifications, $0) }
        #expect(Set(forms).count == 6, "\(forms)")
        #expect(forms[3].contains("\u{2068}3\u{2069}") && forms[4].contains("\u{2068}11\u{2069}"))
        // The sender's own text, unlike the app's words, is not wrapped: it is shown as sent.
        #expect(Self.body(Fixture.text("مرحبا"), ar) == "مرحبا")
    }

    /// The numbers of each locale: its decimal point and thousands separator, for amounts and
    /// counts alike; a crypto amount that is not a plain number stays as the sender wrote it.
    @Test(arguments: [
        ("de_DE.UTF-8", "12.345,5"), ("fr_FR.UTF-8", "12\u{202F}345,5"), ("it_IT.UTF-8", "12.345,5"),
        ("ru_RU.UTF-8", "12\u{202F}345,5"), ("ar_EG.UTF-8", "12,345.5"),
    ])
    func numbersAreWrittenAsTheLocaleWritesThem(_ locale: String, _ written: String) {
        let wording = Self.wording(locale)
        #expect(wording.number("12345.5") == written)
        #expect(
            wording.number("1e5") == "1e5" && wording.number("0x10") == "0x10" && wording.number("1.2.3") == "1.2.3")
    }

    /// A locale the system does not have (only ru_RU.UTF-8 is made) is English, though its
    /// language has a catalog, as a desktop program's would be.
    @Test func aLocaleNotOnTheSystemIsEnglish() {
        #expect(Self.wording("ru_RU.KOI8-R").language == "en")
        #expect(Self.wording("ru_RU.UTF-8").language == "ru")
    }
}

/// The template of po/ and the code hold the same texts: a text changed on one side only would
/// never be translated.
@Suite("Wording: the template")
struct WordingTemplateTests {
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("po/adm-push.pot")

    /// Each entry's msgid and msgid_plural (nil for none), the header's empty one left out.
    static func entries(of text: String) -> [(msgid: String, plural: String?)] {
        var entries: [(msgid: String, plural: String?)] = []
        var key: String?
        var values: [String: String] = [:]
        func flush() {
            if let msgid = values["msgid"], !msgid.isEmpty { entries.append((msgid, values["msgid_plural"])) }
            values = [:]
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                flush()
                key = nil
            } else if let space = line.firstIndex(of: " "), line.hasPrefix("msg") {
                key = String(line[..<space])
                values[key!] = unquoted(line[line.index(after: space)...])
            } else if line.hasPrefix("\""), let key {
                values[key, default: ""] += unquoted(line[...])
            }
        }
        flush()
        return entries
    }

    private static func unquoted(_ text: Substring) -> String {
        String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            .replacingOccurrences(of: "\\n", with: "\n")
    }

    @Test func theTemplateHoldsEveryTextOfTheCodeAndNoOther() throws {
        let entries = Self.entries(of: try String(contentsOf: Self.template, encoding: .utf8))
        let singular = entries.filter { $0.plural == nil }.map(\.msgid)
        let counted = entries.compactMap { entry in entry.plural.map { "\(entry.msgid) / \($0)" } }
        #expect(singular == Phrase.allCases.map(\.rawValue))
        #expect(counted == CountedPhrase.allCases.map { "\($0.english.one) / \($0.english.other)" })
    }
}
