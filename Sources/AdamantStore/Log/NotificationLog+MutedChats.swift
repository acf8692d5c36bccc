public import AdamantCore

/// Chats a desktop notification's "Mute 1 hour" muted, each until a Unix millisecond.
extension NotificationLog {
    /// Mutes `account`'s chat with `partner` until `until` (Unix milliseconds).
    public func mute(_ partner: Address, account: Address, until: Int64) async throws(StoreError) {
        try await write { db in
            try db.query(
                "INSERT OR REPLACE INTO muted_chats (account, partner, until) VALUES (?1, ?2, ?3)",
                [.text(account.description), .text(partner.description), .integer(until)])
        }
    }

    /// `account`'s chats muted past `now`, each with its end; the ended ones are deleted.
    public func mutedChats(account: Address, now: Int64) async throws(StoreError) -> [Address: Int64] {
        let rows = try await write { db in
            try db.query("DELETE FROM muted_chats WHERE until <= ?1", [.integer(now)])
            return try db.query(
                "SELECT partner, until FROM muted_chats WHERE account = ?1", [.text(account.description)])
        }
        var muted: [Address: Int64] = [:]
        for row in rows {
            guard row.count == 2, case .text(let text) = row[0], case .integer(let until) = row[1],
                let partner = try? Address(text)
            else { continue }
            muted[partner] = until
        }
        return muted
    }
}
