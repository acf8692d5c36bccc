import AdamantCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the catalogs are compiled beside the products and ru_RU.UTF-8 is on the system.
enum Catalogs {
    static let ready =
        FileManager.default.fileExists(
            atPath: Binaries.folder.deletingLastPathComponent().appendingPathComponent(
                "share/locale/ru/LC_MESSAGES/adm-push.mo"
            ).path)
        && hasLocale("ru_RU.UTF-8")

    static func hasLocale(_ name: String) -> Bool {
        guard let locale = newlocale(LC_MESSAGES_MASK, name, nil) else { return false }
        freelocale(locale)
        return true
    }
}

/// adm-fetch as a process under a translated locale: the words are the language's, the
/// sender's text and every machine field are as they were.
@Suite(
    "adm-fetch in the user's language", .timeLimit(.minutes(2)),
    .enabled(
        if: Catalogs.ready || TraceTools.inCI,
        "no compiled catalogs or ru_RU.UTF-8 here (scripts/test compiles them; install-deps.sh makes the locales)"))
struct TranslatedFetchTests {
    /// A transfer with a comment under Russian: the sentence and the number are Russian, the
    /// comment is the sender's, and `kind`, `id`, `senderId` are what they are in English.
    @Test func aTransferIsToldInRussian() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send("за билеты", from: network.friend, to: network.me, amount: 250_000_000)
        let id = try #require(sent.id).description
        let result = try await network.fetch([id, "--json", "--no-names"], environment: ["LANG": "ru_RU.UTF-8"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try network.object(result)
        #expect(object["body"] as? String == "Вы получили 2,5 ADM: за билеты")
        #expect(object["text"] as? String == "за билеты")
        #expect(object["kind"] as? String == "transfer" && object["id"] as? String == id)
        #expect(object["senderId"] as? String == network.friend.address.description)
        #expect(object["title"] as? String == network.friend.address.description)
        // LANGUAGE comes first, as gettext reads it from the process's environment.
        let text = try await network.fetch(
            [id, "--no-names"], environment: ["LANG": "ru_RU.UTF-8", "LANGUAGE": "de"])
        #expect(text.stdout == "\(network.friend.address)\nHat dir 2,5 ADM gesendet: за билеты\n", "\(text.stdout)")
        // And English is English, whatever catalogs there are.
        let english = try await network.fetch([id, "--no-names"], environment: ["LANG": "en_US.UTF-8"])
        #expect(english.stdout.hasSuffix("\nSent you 2.5 ADM: за билеты\n"), "\(english.stdout)")
    }

    /// Arabic plain output carries the isolation marks the wording put around each value, as
    /// they are, not escaped; a mark the sender wrote is taken out of the comment as before.
    @Test func anArabicSentenceKeepsItsIsolationMarks() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send(
            "for \u{2067}tickets", from: network.friend, to: network.me, amount: 250_000_000)
        let id = try #require(sent.id).description
        let text = try await network.fetch([id, "--no-names"], environment: ["LANG": "ar_EG.UTF-8"])
        #expect(text.status == 0, "\(text.stderr)")
        let body = String(text.stdout.split(separator: "\n").last ?? "")
        #expect(!body.contains("\\u{"), "escaped: \(body)")
        #expect(body.contains("\u{2068}2.5 ADM\u{2069}") && body.contains("\u{2068}for tickets\u{2069}"), "\(body)")
    }

    /// A push that cannot be read still shows the generic text, in the user's language.
    @Test func theGenericTextIsTranslatedToo() async throws {
        let network = try await FetchDevnet()
        let result = try await network.fetch(
            ["--payload", "-"], input: Data("not a push".utf8), environment: ["LANG": "ar_EG.UTF-8"])
        #expect(result.status == 64)
        #expect(result.stdout == "ADAMANT\nرسالة جديدة\n", "\(result.stdout)")
    }
}
