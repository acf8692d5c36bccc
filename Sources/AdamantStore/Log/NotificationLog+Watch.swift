public import AdamantCore

/// What `watch` keeps: where each of its listings resumes, and the pages it hands over,
/// recorded before they are handed over, counted as they are (in the lease), and recovered
/// after a kill.
extension NotificationLog {
    /// The lease of `account`'s watch on this log's home, held until it is released.
    public func leaseWatch(account: Address) throws(WatchLease.Refusal) -> WatchLease {
        try WatchLease(home: home, account: account)
    }

    /// Where `watch` resumes for `account` on `stream`, if it ran before.
    public func watchCursor(account: Address, stream: WatchStream) async throws(StoreError) -> WatchCursor? {
        let rows = try await read { db in
            try db.query(
                "SELECT height, skip FROM watch_cursors WHERE account = ?1 AND stream = ?2",
                [.text(account.description), .text(stream.rawValue)])
        }
        guard let row = rows.first, let height = row.integer(0), let skip = row.integer(1), height >= 0, skip >= 0
        else { return nil }
        return WatchCursor(height: height, skip: Int(clamping: skip))
    }

    /// Keeps `cursor` as where `watch` resumes for `account` on `stream`.
    public func setWatchCursor(_ cursor: WatchCursor, account: Address, stream: WatchStream) async throws(StoreError) {
        let account = account.description
        try await write { db in try Self.storeCursor(cursor, account: account, stream: stream, db) }
    }

    /// Records the transactions of a page `watch` is about to hand over that were not shown
    /// before (as `shown(among:)` tells), read from `from`, with the cursor past it (`to`) and
    /// the page as the one `stream` is handing over (`HandingOver`), in one transaction: a
    /// crash leaves either the page unrecorded (it is read again) or recorded whole, and
    /// nothing can be shown between the check and the record. Tell the returned page each
    /// notification handed over, in order (it counts them in `lease`), so that a process
    /// killed in the middle loses none of them (`recoverInterruptedPage` at the next start).
    public func recordWatched(
        _ transactions: [WatchedTransaction], account: Address, from: WatchCursor, to cursor: WatchCursor,
        stream: WatchStream, lease: WatchLease
    ) async throws(StoreError) -> WatchedPage {
        let text = account.description
        let (shownBefore, fresh, serial) = try await write { db -> (Set<TransactionID>, [TransactionID], Int64) in
            let shownBefore = try Self.shown(among: transactions, account: text, db)  // no statement for none
            let fresh = shownBefore.isEmpty ? transactions : transactions.filter { !shownBefore.contains($0.id) }
            // A listing read again to no avail (each poll's last blocks) writes nothing.
            if fresh.isEmpty && cursor == from { return (shownBefore, [], 0) }
            let ids = fresh.map(\.id)
            // At the page's start at least, where `takeBack` looks: a node listing a block below
            // it costs at worst a notification shown twice, never one lost.
            let rows = fresh.map { WatchedTransaction(id: $0.id, height: max($0.height, from.height)) }
            try WatchedPages.insert(rows, account: text, db)
            try Self.storeCursor(cursor, account: text, stream: stream, db)
            let serial = try HandingOver.start(account: text, stream: stream, from: from, ids: ids, db)
            return (shownBefore, ids, serial)
        }
        return WatchedPage(
            log: self, ids: fresh, serial: serial, lease: lease, shownBefore: shownBefore, from: from,
            account: account, stream: stream)
    }

    /// Records notifications a node's socket brought, about to be handed over: in `shown`, by
    /// id and with no block, so the listing that later finds them in a block skips them; as
    /// the page `stream` is handing over, as `recordWatched` keeps one, so a process killed in
    /// the middle loses none of them.
    public func recordPooled(
        _ ids: [TransactionID], account: Address, at unixMillis: Int64, stream: WatchStream, lease: WatchLease
    ) async throws(StoreError) -> WatchedPage {
        let start = WatchCursor(height: 0)
        let text = account.description
        let serial = try await write { db in
            for id in ids {
                try db.query(
                    "INSERT INTO shown (account, id, shown_at, pushed, height) VALUES (?1, ?2, ?3, 0, NULL) ON CONFLICT DO NOTHING",
                    [.text(text), .integer(Int64(bitPattern: id.number)), .integer(unixMillis)])
            }
            return try HandingOver.start(account: text, stream: stream, from: start, ids: ids, db)
        }
        return WatchedPage(
            log: self, ids: ids, serial: serial, lease: lease, from: start, account: account, stream: stream)
    }

    /// Recovers what a watch of `account`'s `stream` left at its end: the notifications of a
    /// recorded page that it never handed over (it was killed in the middle, and `lease`, the
    /// account's, says how far it got) are taken out again and the cursor put back before that
    /// page, so the next read hands them over. Returns how many were taken out. The watch
    /// holding the lease calls it as it starts.
    @discardableResult
    public func recoverInterruptedPage(account: Address, stream: WatchStream, lease: WatchLease)
        async throws(StoreError) -> Int
    {
        let text = account.description
        let progress = lease.earlierProgress(of: stream)
        let recovered = try await write { db in
            guard let page = try HandingOver.page(account: text, stream: stream, db) else { return 0 }
            let counted = progress.flatMap { $0.serial == page.serial ? $0.count : nil } ?? 0
            let undelivered = page.undelivered(handedOver: counted)
            if !undelivered.isEmpty {
                try Self.forget(undelivered, account: text, cursor: page.from, stream: stream, db)
            }
            try HandingOver.clear(account: text, stream: stream, db)
            return undelivered.count
        }
        lease.settled(stream)
        return recovered
    }

    /// Undoes `recordWatched` for the ids of a page that were not handed over, putting the
    /// cursor back where the page started; nothing of the page is left to recover.
    func takeBack(_ ids: [TransactionID], account: String, cursor: WatchCursor, stream: WatchStream)
        async throws(StoreError)
    {
        try await write { db in
            if !ids.isEmpty { try Self.forget(ids, account: account, cursor: cursor, stream: stream, db) }
            try HandingOver.clear(account: account, stream: stream, db)
        }
    }

    /// Takes `ids`, recorded by a page read from `cursor` and never handed over, out of
    /// `account`'s log, and puts the cursor of `stream` back there.
    static func forget(
        _ ids: [TransactionID], account: String, cursor: WatchCursor, stream: WatchStream, _ db: SQLiteConnection
    ) throws {
        try WatchedPages.remove(Set(ids), account: account, reaching: cursor.height, db)
        for id in ids {
            // Kept in `shown`: notifications a socket brought.
            try db.query(
                "DELETE FROM shown WHERE account = ?1 AND id = ?2 AND pushed = 0",
                [.text(account), .integer(Int64(bitPattern: id.number))])
        }
        try storeCursor(cursor, account: account, stream: stream, db)
    }

    private static func storeCursor(
        _ cursor: WatchCursor, account: String, stream: WatchStream, _ db: SQLiteConnection
    ) throws {
        try db.query(
            "INSERT OR REPLACE INTO watch_cursors (account, stream, height, skip) VALUES (?1, ?2, ?3, ?4)",
            [
                .text(account), .text(stream.rawValue), .integer(max(0, cursor.height)),
                .integer(Int64(max(0, cursor.skip))),
            ])
    }
}
