import Foundation
import Testing

@testable import AdamantStore

@Suite("SQLite")
struct SQLiteTests {
    let directory: TemporaryDirectory
    let path: String
    static let schema = [
        Migration(version: 1, sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE) STRICT"),
        Migration(version: 2, sql: "ALTER TABLE notes ADD COLUMN weight INTEGER NOT NULL DEFAULT 0"),
    ]

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("store.sqlite")
    }

    /// The notification log's kind: committed without waiting for an fsync.
    @Test func aStoreThatNeedNotBeDurableCommitsWithNormalSynchronous() async throws {
        let database = try SerialDatabase(path: path, create: true, migrations: Self.schema, durable: false)
        #expect(try await database.read { try $0.query("PRAGMA synchronous") } == [[.integer(1)]], "1 is NORMAL")
        #expect(try await database.read { try $0.query("PRAGMA journal_mode") } == [[.text("wal")]])
    }

    @Test func opensInWALWithFullSynchronousCommits() throws {
        let connection = try SQLiteConnection(path: path, create: true)
        #expect(try connection.query("PRAGMA journal_mode") == [[.text("wal")]])
        #expect(try connection.query("PRAGMA synchronous") == [[.integer(2)]], "2 is FULL")
        #expect(try connection.query("PRAGMA foreign_keys") == [[.integer(1)]])
    }

    @Test func aCommittedWriteIsSeenByTheNextConnection() throws {
        do {
            let writer = try SQLiteConnection(path: path, create: true)
            try writer.migrate(Self.schema)
            try writer.writeTransaction { try writer.query("INSERT INTO notes (body) VALUES (?1)", [.text("kept")]) }
        }
        let reader = try SQLiteConnection(path: path, create: false)
        #expect(try reader.query("SELECT body, weight FROM notes") == [[.text("kept"), .integer(0)]])
    }

    @Test func anErrorRollsTheWholeTransactionBack() throws {
        let connection = try SQLiteConnection(path: path, create: true)
        try connection.migrate(Self.schema)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try connection.writeTransaction {
                try connection.query("INSERT INTO notes (body) VALUES ('first')")
                throw Abort()
            }
        }
        #expect(try connection.query("SELECT count(*) FROM notes") == [[.integer(0)]])
    }

    @Test func everyEarlierVersionMigratesToTheLatest() throws {
        for start in 0..<Self.schema.count {
            let file = directory.file("from-\(start).sqlite")
            do {
                let old = try SQLiteConnection(path: file, create: true)
                try old.migrate(Array(Self.schema.prefix(start)))
                #expect(try old.userVersion == Int64(start))
            }
            let current = try SQLiteConnection(path: file, create: false)
            try current.migrate(Self.schema)
            #expect(try current.userVersion == 2)
            try current.query("INSERT INTO notes (body, weight) VALUES ('x', 3)")
        }
    }

    /// A command's last connection closing leaves the WAL and shm files for the next process
    /// and checkpoints nothing (the database file keeps its size); a new connection reads
    /// every commit from the WAL.
    @Test func closingTheLastConnectionKeepsTheWALAndCheckpointsNothing() throws {
        do {
            let connection = try SQLiteConnection(path: path, create: true)
            try connection.migrate(Self.schema)
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        do {
            let connection = try SQLiteConnection(path: path, create: false)
            for note in 0..<50 {
                try connection.query(
                    "INSERT INTO notes (body) VALUES (?1)", [.text(String(repeating: "n\(note)", count: 100))])
            }
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size)
        let reader = try SQLiteConnection(path: path, create: false)
        #expect(try reader.query("SELECT count(*) FROM notes") == [[.integer(50)]])
    }

    /// Each command is a process with one connection, so each open finds no other and rebuilds
    /// the WAL's index from the whole WAL, forgetting what was checkpointed: SQLite's automatic
    /// checkpoint then never let the WAL start over, and it grew by every commit for good
    /// (8 MB and 6 ms more a cold fetch after 2,000 fetches). Now an open that finds it long
    /// truncates it.
    @Test func theWALStaysShortAcrossManyShortLivedConnections() throws {
        do { try SQLiteConnection(path: path, create: true).migrate(Self.schema) }
        var longest = 0
        for note in 0..<1_200 {  // past SQLite's 1,000-page automatic checkpoint
            let connection = try SQLiteConnection(path: path, create: false)
            try connection.query("INSERT INTO notes (body) VALUES (?1)", [.text("note \(note)")])
            longest = max(longest, try walSize())
        }
        // The one commit after an open that found it just short of the limit goes past it.
        let limit = SQLiteConnection.walBytes(frames: SQLiteConnection.truncateWALAtFrames + 8)
        #expect(longest <= limit, "the WAL reached \(longest) bytes")
        let reader = try SQLiteConnection(path: path, create: false)
        #expect(try reader.query("SELECT count(*) FROM notes") == [[.integer(1_200)]])
    }

    /// A reader holding a snapshot (a watch in another process) leaves the WAL for a later
    /// open, and the open does not wait for it: had it waited its 60 s busy timeout, the test
    /// would pass its minute.
    @Test(.timeLimit(.minutes(1))) func anOpenBesideAReaderLeavesTheWALWithoutWaiting() throws {
        do { try SQLiteConnection(path: path, create: true).migrate(Self.schema) }
        let (writer, reader) = (
            try SQLiteConnection(path: path, create: false), try SQLiteConnection(path: path, create: false)
        )
        let commits = SQLiteConnection.truncateWALAtFrames + 10
        for note in 0..<commits { try writer.query("INSERT INTO notes (body) VALUES (?1)", [.text("note \(note)")]) }
        let long = try walSize()
        #expect(long > SQLiteConnection.walBytes(frames: SQLiteConnection.truncateWALAtFrames))
        try reader.execute("BEGIN")
        #expect(try reader.query("SELECT count(*) FROM notes") == [[.integer(Int64(commits))]])
        _ = try SQLiteConnection(path: path, create: false, busyTimeoutMillis: 60_000)
        #expect(try walSize() == long)
        try reader.execute("COMMIT")
        _ = try SQLiteConnection(path: path, create: false)
        #expect(try walSize() == 0)
        #expect(try reader.query("SELECT count(*) FROM notes") == [[.integer(Int64(commits))]])
    }

    private func walSize() throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
    }

    /// Refused before anything is written: not even the switch to WAL touches the file.
    @Test func aDatabaseFromANewerSchemaIsRefusedAndLeftAsItIs() throws {
        do {
            let newer = try SQLiteConnection(path: path, create: true, configure: false)
            try newer.execute("CREATE TABLE later (x INTEGER) STRICT; PRAGMA user_version = 3")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: MigrationError.newerSchema(found: 3, supported: 2)) {
            try SerialDatabase(path: path, create: false, migrations: Self.schema)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aFileThatIsNotADatabaseIsCorruptNotEmpty() throws {
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SQLiteError.self) {
            try SerialDatabase(path: path, create: false, migrations: Self.schema)
        }
        #expect(error.isCorrupt, "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func aMissingFileIsNotCreatedUnlessAsked() throws {
        #expect(throws: SQLiteError.self) { try SQLiteConnection(path: path, create: false) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func errorsNeverCarryTheBoundValues() throws {
        let connection = try SQLiteConnection(path: path, create: true)
        try connection.migrate(Self.schema)
        let secret = "apns-token-0123456789abcdef"
        try connection.query("INSERT INTO notes (body) VALUES (?1)", [.text(secret)])
        let error = try #require(throws: SQLiteError.self) {
            try connection.query("INSERT INTO notes (body) VALUES (?1)", [.text(secret)])
        }
        #expect(error.isConstraint)
        #expect(error.sql == "INSERT INTO notes (body) VALUES (?1)")
        #expect(!error.description.contains(secret), "\(error)")
    }

    /// IMMEDIATE takes the write lock at BEGIN: a second writer is refused there (here with no
    /// busy wait) rather than after it has read, and gets through once the first commits.
    @Test func aSecondWriterWaitsForTheFirstAtBegin() throws {
        let first = try SQLiteConnection(path: path, create: true)
        try first.migrate(Self.schema)
        let second = try SQLiteConnection(path: path, create: false, busyTimeoutMillis: 0)
        try first.execute("BEGIN IMMEDIATE")
        try first.query("INSERT INTO notes (body) VALUES ('first')")
        let busy = try #require(throws: SQLiteError.self) {
            try second.writeTransaction { try second.query("INSERT INTO notes (body) VALUES ('second')") }
        }
        #expect(busy.isBusy, "\(busy)")
        try first.execute("COMMIT")
        try second.writeTransaction { try second.query("INSERT INTO notes (body) VALUES ('second')") }
        #expect(try second.query("SELECT body FROM notes ORDER BY id") == [[.text("first")], [.text("second")]])
    }

    /// Putting a new file in WAL mode takes an exclusive lock without SQLite's busy handler, so
    /// connections opening one fresh file at once got "database is locked" (seen on CI with
    /// eight `adm-push register` processes on one new home). Each must wait its turn instead.
    @Test func connectionsOpeningOneNewFileAtOnceAllSucceed() async throws {
        for round in 0..<50 {
            let file = directory.file("fresh-\(round).sqlite")
            let failures = await onOwnThread { () -> [String] in
                let lock = NSLock()
                nonisolated(unsafe) var failures: [String] = []
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    do {
                        _ = try SerialDatabase(path: file, create: true, migrations: Self.schema)
                    } catch {
                        lock.withLock { failures.append("\(error)") }
                    }
                }
                return failures
            }
            #expect(failures == [], "round \(round)")
        }
    }

    @Test func blobsAndNullsRoundTrip() throws {
        let connection = try SQLiteConnection(path: path, create: true)
        try connection.execute("CREATE TABLE b (x BLOB, y TEXT) STRICT")
        let bytes: [UInt8] = [0, 1, 2, 255, 0]
        try connection.query(
            "INSERT INTO b VALUES (?1, ?2), (?3, ?4), (?5, ?6)",
            [.blob(bytes), .null, .blob([]), .text("é\u{0}z"), .null, .text("")])
        #expect(
            try connection.query("SELECT x, y FROM b") == [
                [.blob(bytes), .null], [.blob([]), .text("é\u{0}z")], [.null, .text("")],
            ])
    }

    @Test func theSerialOwnerRunsWritesAndReadsFromTasks() async throws {
        let database = try SerialDatabase(path: path, create: true, migrations: Self.schema)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    _ = try await database.write {
                        try $0.query("INSERT INTO notes (body) VALUES (?1)", [.text("n\(index)")])
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await database.read { try $0.query("SELECT count(*) FROM notes") }
        #expect(count == [[.integer(50)]])
    }
}
