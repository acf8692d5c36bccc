import AdamantFetch

/// A translation catalog as adm-fetch reads one (`TEXTDOMAINDIR` may name any file): the first
/// byte even, the rest is a `.mo` file, read and asked for texts and every count's form; odd,
/// the rest is a plural rule's expression, evaluated for counts around its edges.
enum CatalogFuzz {
    static let counts: [Int] = [0, 1, 2, 3, 4, 5, 10, 11, 12, 19, 20, 21, 22, 100, 101, 111, 1_000_001, .max]

    static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let rest = Array(data.dropFirst())
        if selector % 2 == 0 {
            guard let catalog = try? MessageCatalog(bytes: rest) else { return }
            _ = catalog.text("New message")
            _ = catalog.text("")
            for count in counts { _ = catalog.text("%1$s new message", plural: "%1$s new messages", count: count) }
            _ = catalog.plural
        } else {
            guard let rule = PluralRule(expression: String(decoding: rest, as: UTF8.self)) else { return }
            for count in counts {
                let form = rule.form(for: UInt64(count))
                invariant(form >= 0, "a negative form \(form)")
            }
        }
    }
}
