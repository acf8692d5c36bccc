import Testing

@testable import AdamantStore

#if canImport(Glibc)
    import Glibc
#endif

/// What a storage failure says: the store by its name and its path, what happened and what to
/// do, and never the SQL that failed.
@Suite("Store failure words")
struct StoreFailureWordsTests {
    @Test(arguments: [
        (
            Int32(13), "database or disk is full",
            "cannot be written: the disk is full. Free some space and run the command again; what it held is intact"
        ),
        (
            8, "attempt to write a readonly database",
            "cannot be written: it or its directory is read-only. Make both writable by you (chmod u+w), or give another --home"
        ),
        (
            4874, "disk I/O error",
            "cannot be read or written: the disk reported an error (disk I/O error). Check the disk; what was committed before is intact"
        ),
        (
            5, "database is locked",
            "stayed locked by another process past the wait: let the other adm-push or adm-fetch on this home finish, then run again"
        ),
        (1, "no such table: intents", "cannot be used: no such table: intents"),
    ])
    func aFailureSaysWhatHappenedToWhichFile(_ code: Int32, _ message: String, _ said: String) {
        let error = SQLiteError(
            extendedCode: code, message: message,
            sql: "INSERT INTO sync_cursors (account, service, height) VALUES (?1, ?2, ?3)")
        let outbox = StoreError(error, store: .outbox, path: "/nonexistent/home/outbox.sqlite")
        #expect(outbox.description == "the outbox store /nonexistent/home/outbox.sqlite " + said)
        #expect(!outbox.description.contains("INSERT") && !outbox.description.contains("SQLite error"))
        let log = StoreError(error, store: .notificationLog, path: "/nonexistent/home/notifications.sqlite")
        #expect(log.description.hasPrefix("the notification log /nonexistent/home/notifications.sqlite "))
    }

    /// The store is named by what it is, not by its file's name: a file called anything is
    /// still the store it was opened as.
    @Test func theStoreIsNamedByItsTypeWhateverItsFileIsCalled() {
        let failure = StoreError.failed(.outbox, path: "/h/renamed.sqlite", .readOnly)
        #expect(failure.description.hasPrefix("the outbox store /h/renamed.sqlite cannot be written"))
        let corrupt = SQLiteError(extendedCode: 11, message: "database disk image is malformed")
        #expect(
            StoreError(corrupt, store: .notificationLog, path: "/h/outbox.sqlite").description.hasPrefix(
                "the notification log /h/outbox.sqlite is damaged"))
    }

    /// Damage is still damage, with the repair to run, whichever file it is.
    @Test func aCorruptFileIsDamageNamingTheRepair() {
        let corrupt = SQLiteError(extendedCode: 11, message: "database disk image is malformed", sql: "SELECT 1")
        #expect(
            StoreError(corrupt, store: .outbox, path: "/h/outbox.sqlite").description
                == "the outbox store /h/outbox.sqlite is damaged (database disk image is malformed): move it aside and run 'adm-push repair', which rebuilds it from the chain"
        )
        #expect(
            StoreError(corrupt, store: .notificationLog, path: "/h/notifications.sqlite").description
                == "the notification log /h/notifications.sqlite is damaged (database disk image is malformed): move it aside, and a new one is started: it has forgotten what was shown, and a watch resumes from the block its lease kept (or give it --from-height HEIGHT)"
        )
        #expect(
            StoreError(corrupt, store: .outbox, path: "/h/outbox.sqlite-wal").description.contains(
                "move it and /h/outbox.sqlite-shm aside and run"))
    }
}
