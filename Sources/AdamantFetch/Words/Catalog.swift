#if canImport(CIntl)
    import CIntl
    import Synchronization

    /// One language's translations, looked up with glibc's gettext in the catalogs msgfmt made
    /// of po/*.po (`DIRECTORY/LANG/LC_MESSAGES/adm-push.mo`). The locale the environment names
    /// is this catalog's own (`newlocale`) and is made the thread's only around each lookup
    /// (`uselocale`): the process's locale, which every other library reads (its error
    /// messages, its number parsing), is never changed.
    final class Catalog: @unchecked Sendable {
        // @unchecked: the locale is only read after `init`, and freed by `deinit` alone.
        static let domain = "adm-push"
        /// The directory `bindtextdomain` was last given: it is one per process.
        private static let bound = Mutex<String?>(nil)

        private let locale: locale_t
        /// The locale's decimal point and thousands separator.
        let decimalPoint: String
        let thousandsSeparator: String

        /// The catalogs in `directory`, read in the locale `environment` names for messages
        /// and for numbers (`LC_ALL`, else `LC_MESSAGES` or `LC_NUMERIC`, else `LANG`; gettext
        /// reads `LANGUAGE` itself); nil when that locale is not on this system.
        init?(directory: String, environment: [String: String]) {
            func name(_ category: String) -> String {
                [environment["LC_ALL"], environment[category], environment["LANG"]].lazy.compactMap { $0 }
                    .first { !$0.isEmpty } ?? "C"
            }
            guard let messages = newlocale(LC_MESSAGES_MASK, name("LC_MESSAGES"), nil) else { return nil }
            guard let locale = newlocale(LC_NUMERIC_MASK, name("LC_NUMERIC"), messages) else {
                freelocale(messages)
                return nil
            }
            self.locale = locale
            decimalPoint = String(cString: nl_langinfo_l(nl_item(RADIXCHAR), locale))
            thousandsSeparator = String(cString: nl_langinfo_l(nl_item(THOUSEP), locale))
            Self.bound.withLock { bound in
                guard bound != directory else { return }
                bindtextdomain(Self.domain, directory)
                // The catalogs' UTF-8 as it is, whatever the locale's character set.
                bind_textdomain_codeset(Self.domain, "UTF-8")
                bound = directory
            }
        }

        deinit { freelocale(locale) }

        /// The translation of `msgid`, or `msgid` when there is none.
        func text(_ msgid: String) -> String {
            let previous = uselocale(locale)
            defer { uselocale(previous) }
            return String(cString: dcgettext(Self.domain, msgid, LC_MESSAGES))
        }

        /// The form of `msgid` / `plural` for `count`, as the catalog's plural rule picks it.
        func text(_ msgid: String, plural: String, count: Int) -> String {
            let previous = uselocale(locale)
            defer { uselocale(previous) }
            let n = UInt(clamping: count)
            return String(cString: dcngettext(Self.domain, msgid, plural, n, LC_MESSAGES))
        }
    }
#else
    /// No gettext here: every text stays English.
    final class Catalog: Sendable {
        let decimalPoint = "."
        let thousandsSeparator = ""
        init?(directory: String, environment: [String: String]) { nil }
        func text(_ msgid: String) -> String { msgid }
        func text(_ msgid: String, plural: String, count: Int) -> String { count == 1 ? msgid : plural }
    }
#endif
