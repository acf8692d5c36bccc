public import AdamantCore

/// Notifications shown everywhere but on the desktop, whose notification service was away:
/// the next watch shows them there.
extension NotificationLog {
    /// `id` was not delivered to the desktop (its service was away) at `at`, Unix milliseconds.
    public func recordUndelivered(_ id: TransactionID, account: Address, at: Int64) async throws(StoreError) {
        try await write { db in
            try db.query(
                "INSERT OR IGNORE INTO undelivered (account, id, at) VALUES (?1, ?2, ?3)",
                [.text(account.description), .integer(Int64(bitPattern: id.number)), .integer(at)])
        }
    }

    /// `id` reached the desktop after all, or is given up.
    public func forgetUndelivered(_ id: TransactionID, account: Address) async throws(StoreError) {
        try await write { db in
            try db.query(
                "DELETE FROM undelivered WHERE account = ?1 AND id = ?2",
                [.text(account.description), .integer(Int64(bitPattern: id.number))])
        }
    }

    /// What the desktop did not take for `account`, in the order it was missed.
    public func undelivered(account: Address) async throws(StoreError) -> [TransactionID] {
        let rows = try await read { db in
            try db.query("SELECT id FROM undelivered WHERE account = ?1 ORDER BY at, id", [.text(account.description)])
        }
        return rows.compactMap { row in
            guard case .integer(let value)? = row.first else { return nil }
            return TransactionID(number: UInt64(bitPattern: value))
        }
    }
}
