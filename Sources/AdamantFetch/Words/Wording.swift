#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The words notifications are shown in: English, or the language of a catalog of po/ that
/// the user's locale asks for, with its plural forms and its way of writing numbers. Only the
/// program's own words change: a sender's text and name, addresses and ids never do.
public struct Wording: Sendable, Hashable {
    /// English, as the texts are written in the code, numbers as `1234.5`.
    public static let english = Wording(language: "en", catalog: nil)

    /// `en`, or the language of the catalog the words come from (`ru`, `ar`).
    public let language: String
    private let catalog: Catalog?

    private init(language: String, catalog: Catalog?) {
        (self.language, self.catalog) = (language, catalog)
    }

    /// The same language: the same words (one language's catalogs are one).
    public static func == (lhs: Wording, rhs: Wording) -> Bool { lhs.language == rhs.language }

    /// Hashes the language, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(language) }

    /// The wording `environment` asks for, as a desktop program reads it: `LC_ALL`, else
    /// `LC_MESSAGES`, else `LANG` names the locale, and unless that is C or POSIX, the
    /// languages of `LANGUAGE` come first. The first of those that is English, or has a
    /// catalog in `directory` (`LANG/LC_MESSAGES/adm-push.mo`; by default
    /// `catalogDirectory(environment:)`), is taken. English when none does, or when the
    /// locale is not on this system; English reads no file at all.
    public init(environment: [String: String], catalogs directory: String? = nil) {
        var found: MessageCatalog?
        var folder = directory
        guard
            let language = Self.language(
                environment,
                has: { language in
                    folder = folder ?? Self.catalogDirectory(environment: environment)
                    found = Catalog.messages(of: language, in: folder ?? "")
                    return found != nil
                }),
            let messages = found, let catalog = Catalog(messages, environment: environment)
        else {
            self = .english
            return
        }
        self.init(language: language, catalog: catalog)
    }

    /// Where an installed program's catalogs are: `TEXTDOMAINDIR` when it is an absolute
    /// path, else `share/locale` beside the directory the program is in (`/usr/share/locale`
    /// for `/usr/bin`, `.build/…/share/locale` for a build's products).
    public static func catalogDirectory(environment: [String: String]) -> String {
        if let directory = environment["TEXTDOMAINDIR"], directory.hasPrefix("/") { return directory }
        var path = [UInt8](repeating: 0, count: 4096)
        let count = path.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        }
        // Two directories up from the program: bytes, not string searching, which costs a cold
        // process a tenth of a millisecond.
        var slashes = 0
        var end = max(count, 0)
        while end > 0, slashes < 2 {
            end -= 1
            if path[end] == UInt8(ascii: "/") { slashes += 1 }
        }
        guard slashes == 2 else { return "/usr/share/locale" }
        return String(decoding: path[0..<end], as: UTF8.self) + "/share/locale"
    }

    /// The language chosen from `environment` among those `has` a catalog; nil for English.
    static func language(_ environment: [String: String], has: (String) -> Bool) -> String? {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, locale != "C", locale != "POSIX", !locale.hasPrefix("C.") else { return nil }
        let listed = environment["LANGUAGE"].map { $0.split(separator: ":").map(String.init) } ?? []
        for name in listed + [locale] {
            let code = String(name.prefix { $0 != "_" && $0 != "." && $0 != "@" }).lowercased()
            if code == "en" { return nil }
            if !code.isEmpty, code.allSatisfy({ $0.isASCII && $0.isLetter }), has(code) { return code }
        }
        return nil
    }

    /// The label of a bubble's action that opens its chat.
    public var openAction: String { text(.open) }
    /// The label of a bubble's action that mutes its chat for an hour.
    public var muteAction: String { text(.muteOneHour) }

    /// Written right to left: a value put into a sentence is isolated (U+2068 … U+2069), so an
    /// address or an amount reads whole, in its own direction.
    var isRightToLeft: Bool { ["ar", "fa", "he", "ur"].contains(language) }

    /// `phrase` in this language with `values` put in.
    func text(_ phrase: Phrase, _ values: String...) -> String {
        let template = catalog?.messages.text(phrase.rawValue) ?? phrase.rawValue
        return Self.fill(template, isRightToLeft ? values.map { "\u{2068}\($0)\u{2069}" } : values)
    }

    /// `phrase` for `count`, in the form this language's plural rule picks, the count written
    /// as the locale writes numbers.
    func counted(_ phrase: CountedPhrase, _ count: Int) -> String {
        let (one, other) = phrase.english
        let template = catalog?.messages.text(one, plural: other, count: count) ?? (count == 1 ? one : other)
        let shown = number(String(count))
        return Self.fill(template, [isRightToLeft ? "\u{2068}\(shown)\u{2069}" : shown])
    }

    /// A decimal number as `1234.5` written as the locale writes it (`1 234,5` in Russian);
    /// any other text as it is.
    func number(_ text: String) -> String {
        guard let catalog else { return text }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            parts.allSatisfy({ $0.allSatisfy(\.isNumber) })
        else { return text }
        var whole = ""
        for (index, digit) in parts[0].enumerated() {
            if index > 0, (parts[0].count - index) % 3 == 0 { whole += catalog.thousandsSeparator }
            whole.append(digit)
        }
        return parts.count == 2 ? whole + catalog.decimalPoint + parts[1] : whole
    }

    /// `template` with `%1$s` and `%2$s` replaced by `values`, and `%%` by `%`; anything else
    /// as it is (a catalog's text is never a format string to C).
    static func fill(_ template: String, _ values: [String]) -> String {
        guard template.contains("%") else { return template }
        var filled = ""
        var rest = Substring(template)
        while let percent = rest.firstIndex(of: "%") {
            filled += rest[..<percent]
            rest = rest[percent...]
            if rest.hasPrefix("%%") {
                filled += "%"
                rest = rest.dropFirst(2)
            } else if rest.count >= 4, let digit = rest.dropFirst().first?.wholeNumberValue, (1...9).contains(digit),
                rest.dropFirst(2).hasPrefix("$s")
            {
                filled += digit <= values.count ? values[digit - 1] : ""
                rest = rest.dropFirst(4)
            } else {
                filled += "%"
                rest = rest.dropFirst()
            }
        }
        return filled + rest
    }
}
