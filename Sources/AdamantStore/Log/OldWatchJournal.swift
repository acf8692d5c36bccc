package import AdamantCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The small file (`watch-ACCOUNT-STREAM.journal`) in which releases before the log kept the
/// page a watch was handing over: the page's notifications and the cursor before it, then the
/// count handed over. Opening the log settles each one left in the home, as that release's
/// watch settled it at its next start, then deletes it (`NotificationLog.settleOldJournals`).
package enum OldWatchJournal {
    /// What a file says.
    package struct Page: Hashable {
        /// The cursor before the page, where a restart reads again from.
        package var from: WatchCursor
        /// The page's new notifications, in the order they are handed over.
        package var ids: [TransactionID]
        /// Those handed over: the first of `ids`.
        package var delivered: [TransactionID] = []

        /// Recorded but not handed over, in page order.
        package var undelivered: [TransactionID] {
            let done = Set(delivered)
            return ids.filter { !done.contains($0) }
        }
    }

    /// "AWJ2", then the count handed over and the number of ids (UInt32), the cursor's height
    /// and skip (Int64), the ids (UInt64), all little-endian. What follows the ids is an
    /// earlier, longer page's and is not read.
    package static let magic: [UInt8] = Array("AWJ2".utf8)
    static let headerSize = 28
    /// The first format: "AWJ1", the number of ids, the cursor, the ids, then each id handed
    /// over appended.
    static let appendingMagic: [UInt8] = Array("AWJ1".utf8)
    /// Far more than a page of the nodes' 100; a larger file is not one a watch wrote.
    package static let sizeLimit = 1 << 20

    /// The journal of `account`'s listing `stream` in `home`.
    static func path(home: String, account: Address, stream: String) -> String {
        home + "/watch-\(account)-\(stream).journal"
    }

    /// Whose journal a file of the home is, by its name; nil for any other file.
    static func owner(ofFileNamed name: String) -> (account: Address, stream: String)? {
        guard name.hasPrefix("watch-"), name.hasSuffix(".journal") else { return nil }
        let middle = name.dropFirst("watch-".count).dropLast(".journal".count)
        guard let dash = middle.firstIndex(of: "-"), let account = try? Address(String(middle[..<dash])) else {
            return nil
        }
        let stream = String(middle[middle.index(after: dash)...])
        return stream.isEmpty ? nil : (account, stream)
    }

    /// Deletes the file at `path`, if there is one: settled or damaged, it guards nothing.
    static func remove(atPath path: String) { unlink(path) }

    /// The page the file at `path` holds; nil for none, or for a file a watch did not write
    /// (which then guards nothing).
    static func read(atPath path: String) -> Page? {
        guard let bytes = try? SmallFile.read(atPath: path, limit: sizeLimit) else { return nil }
        return decode(bytes)
    }

    /// The page in `bytes`, or nil when they are not a journal: a wrong magic, fewer ids than
    /// the header counts, more handed over than there are, a negative cursor.
    package static func decode(_ bytes: [UInt8]) -> Page? {
        if bytes.starts(with: appendingMagic) { return decodeAppending(bytes) }
        guard bytes.count >= headerSize, bytes.starts(with: magic), let from = cursor(in: bytes, at: 12) else {
            return nil
        }
        let handedOver = Int(number(in: bytes, at: 4, size: 4))
        let count = Int(number(in: bytes, at: 8, size: 4))
        guard handedOver <= count, count <= (bytes.count - headerSize) / 8 else { return nil }
        let ids = ids(in: bytes, at: headerSize, count: count)
        return Page(from: from, ids: ids, delivered: Array(ids[..<handedOver]))
    }

    /// A page in the first format, whose ids handed over follow its ids to the end of the
    /// file; nil too when one of those is not the page's.
    private static func decodeAppending(_ bytes: [UInt8]) -> Page? {
        let header = 24
        guard bytes.count >= header, let from = cursor(in: bytes, at: 8) else { return nil }
        let count = Int(number(in: bytes, at: 4, size: 4))
        let records = (bytes.count - header) / 8
        guard count <= records else { return nil }
        let all = ids(in: bytes, at: header, count: records)
        let page = Page(from: from, ids: Array(all[..<count]), delivered: Array(all[count...]))
        return Set(page.delivered).isSubset(of: page.ids) ? page : nil
    }

    private static func cursor(in bytes: [UInt8], at offset: Int) -> WatchCursor? {
        let height = Int64(bitPattern: number(in: bytes, at: offset, size: 8))
        let skip = Int64(bitPattern: number(in: bytes, at: offset + 8, size: 8))
        guard height >= 0, skip >= 0, let skipCount = Int(exactly: skip) else { return nil }
        return WatchCursor(height: height, skip: skipCount)
    }

    /// `count` ids packed 8 bytes each, little-endian, from `offset`, as the watched pages
    /// pack them.
    private static func ids(in bytes: [UInt8], at offset: Int, count: Int) -> [TransactionID] {
        WatchedPages.ids(in: Array(bytes[offset..<offset + 8 * count]))
    }

    private static func number(in bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (offset..<offset + size).reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}

extension NotificationLog {
    /// Settles into the log each journal file a watch of a release before it left in the home
    /// (`OldWatchJournal`), then deletes it: what its page recorded and never handed over is
    /// taken out and the cursor put back, as that release's watch did at its next start. Each
    /// only while no watch of its account runs, which would be one of that release, still
    /// writing its journal: a later opening settles it, or the next watch as it starts
    /// (`settleWatched`).
    func settleOldJournals() throws(StoreError) {
        for name in FileHolders.entries(of: home) {
            guard let (account, stream) = OldWatchJournal.owner(ofFileNamed: name) else { continue }
            try WatchLease.whileFree(home: home, account: account) { () throws(StoreError) in
                let path = home + "/" + name
                if let page = OldWatchJournal.read(atPath: path), case let undelivered = page.undelivered,
                    !undelivered.isEmpty
                {
                    try writeNow { db in
                        try Self.forget(
                            undelivered, account: account.description, cursor: page.from, stream: stream, db)
                    }
                }
                OldWatchJournal.remove(atPath: path)
            }
        }
    }
}
