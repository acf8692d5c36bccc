public import AdamantCore

/// Partners' public keys: an address's key never changes, so one found once is kept.
extension NotificationLog {
    /// The key kept for `address`, if it was kept and still hashes to it.
    public func publicKey(of address: Address) async throws(StoreError) -> PublicKey? {
        let rows = try await read { db in
            try db.query("SELECT public_key FROM public_keys WHERE address = ?1", [.text(address.description)])
        }
        guard case .blob(let bytes)? = rows.first?.first, let key = try? PublicKey(bytes: bytes), key.address == address
        else { return nil }
        return key
    }

    /// Keeps `key` for `address` if it is that address's key (anything else is refused).
    public func remember(_ key: PublicKey, of address: Address) async throws(StoreError) {
        guard key.address == address else { return }
        try await write { db in
            try db.query(
                "INSERT OR REPLACE INTO public_keys (address, public_key) VALUES (?1, ?2)",
                [.text(address.description), .blob(key.bytes)])
        }
    }
}
