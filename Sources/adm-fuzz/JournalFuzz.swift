import AdamantStore

/// The watch's page journal as a restart reads it (a file in the home, perhaps cut short or
/// damaged). What it reads, written back, is the file's whole records byte for byte, and the
/// ids it would take out of the log are the page's own.
enum JournalFuzz {
    static func run(_ data: [UInt8]) {
        guard let page = WatchJournal.decode(data) else { return }
        let whole = WatchJournal.headerSize + (data.count - WatchJournal.headerSize) / 8 * 8
        invariant(WatchJournal.encode(page) == Array(data[..<whole]), "the journal read is not the one written back")
        let undelivered = page.undelivered
        invariant(Set(undelivered).isSubset(of: page.ids), "an id to take out that is not the page's")
        invariant(Set(undelivered).isDisjoint(with: page.delivered), "a delivered id taken out")
    }
}
