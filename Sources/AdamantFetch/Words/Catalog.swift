import AdamantCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One language's translations (a catalog msgfmt compiled from po/) and the way its locale
/// writes numbers. Nothing of the process's locale is read or changed: the catalog is read by
/// its own path, and the locale's separators are read from a locale object made and freed
/// here, so every other library's numbers and messages stay the C locale's.
struct Catalog: Sendable {
    static let domain = "adm-push"
    /// Far more than a catalog of a few dozen texts needs; a larger file is not read.
    static let maximumBytes = 1 << 20

    let messages: MessageCatalog
    let decimalPoint: String
    let thousandsSeparator: String

    /// The catalog of `language` in `directory` (`LANG/LC_MESSAGES/adm-push.mo`); nil when
    /// there is none, or it cannot be read as one.
    static func messages(of language: String, in directory: String) -> MessageCatalog? {
        let path = "\(directory)/\(language)/LC_MESSAGES/\(domain).mo"
        guard let bytes = try? SmallFile.read(atPath: path, limit: maximumBytes) else { return nil }
        return try? MessageCatalog(bytes: bytes)
    }

    /// `messages`, with the separators of the locale `environment` names for numbers; nil when
    /// the locale it names for messages is not on this system, as gettext would then show
    /// the texts as written.
    init?(_ messages: MessageCatalog, environment: [String: String]) {
        func name(_ category: String) -> String {
            [environment["LC_ALL"], environment[category], environment["LANG"]].lazy.compactMap { $0 }
                .first { !$0.isEmpty } ?? "C"
        }
        let (messageLocale, numberLocale) = (name("LC_MESSAGES"), name("LC_NUMERIC"))
        guard let locale = newlocale(LC_MESSAGES_MASK | LC_NUMERIC_MASK, messageLocale, nil) else { return nil }
        var numbers = locale
        if numberLocale != messageLocale {
            // The numbers' own locale, or the messages' when it is not on this system.
            numbers = newlocale(LC_NUMERIC_MASK, numberLocale, locale) ?? locale
        }
        defer { freelocale(numbers) }
        self.messages = messages
        decimalPoint = String(cString: nl_langinfo_l(nl_item(RADIXCHAR), numbers))
        thousandsSeparator = String(cString: nl_langinfo_l(nl_item(THOUSEP), numbers))
    }
}
