import Testing

@testable import AdamantPush

/// What a storage failure says: the file by its name and path, what happened and what to do,
/// and never the SQL that failed.
@Suite("Store failure words")
struct StoreFailureWordsTests {
    @Test(arguments: [
        (Int32(13), "database or disk is full", "cannot be written: the disk is full. Free some space and run the command again; what it held is intact"),
        (8, "attempt to write a readonly database", "cannot be written: it or its directory is read-only. Make both writable by you (chmod u+w), or give another --home"),
        (4874, "disk I/O error", "cannot be read or written: the disk reported an error (disk I/O error). Check the disk; what was committed before is intact"),
        (5, "database is locked", "stayed locked by another process past the wait: let the other adm-push or adm-fetch on this home finish, then run again"),
        (1, "no such table: intents", "cannot be used: no such table: intents"),
    ])
    func aFailureSaysWhatHappenedToWhichFile(_ code: Int32, _ message: String, _ said: String) {
        let error = SQLiteError(extendedCode: code, message: message, sql: "INSERT INTO sync_cursors (account, service, height) VALUES (?1, ?2, ?3)")
        let outbox = OutboxError(storeFailure: error, path: "/nonexistent/home/outbox.sqlite")
        #expect(outbox.description == "the outbox store /nonexistent/home/outbox.sqlite " + said)
        #expect(!outbox.description.contains("INSERT") && !outbox.description.contains("SQLite error"))
        let log = OutboxError(storeFailure: error, path: "/nonexistent/home/notifications.sqlite")
        #expect(log.description.hasPrefix("the notification log /nonexistent/home/notifications.sqlite "))
    }

    /// Damage is still damage, with the repair to run, whichever file it is.
    @Test func aCorruptFileIsDamageNamingTheRepair() {
        let corrupt = SQLiteError(extendedCode: 11, message: "database disk image is malformed", sql: "SELECT 1")
        #expect(OutboxError(storeFailure: corrupt, path: "/h/outbox.sqlite").description
            == "the outbox store /h/outbox.sqlite is damaged (database disk image is malformed): move it aside and run 'adm-push repair', which rebuilds it from the chain")
        #expect(OutboxError(storeFailure: corrupt, path: "/h/notifications.sqlite").description.hasSuffix("move it aside, and a new one is started (which has forgotten what was shown)"))
    }
}
