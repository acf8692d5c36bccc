import AdamantStore

/// The watch's page journal as a restart reads it (a file in the home, perhaps cut short,
/// damaged, or left by the first format). A page read from the current format is the file's
/// beginning, byte for byte, written back; the ids it would take out of the log are the
/// page's own and none handed over.
enum JournalFuzz {
    static func run(_ data: [UInt8]) {
        guard let page = WatchJournal.decode(data) else { return }
        if data.starts(with: WatchJournal.magic) {
            invariant(data.starts(with: WatchJournal.encode(page)), "the journal read is not the one written back")
        }
        let undelivered = page.undelivered
        invariant(Set(undelivered).isSubset(of: page.ids), "an id to take out that is not the page's")
        invariant(Set(undelivered).isDisjoint(with: page.delivered), "a delivered id taken out")
    }
}
