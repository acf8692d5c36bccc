import AdamantCore
internal import CSQLite

/// One SQLite connection. Not `Sendable`: exactly one owner (`SerialDatabase`) uses it, from one
/// thread at a time, which is why it is opened with `SQLITE_OPEN_NOMUTEX`.
package final class SQLiteConnection {
    let handle: OpaquePointer
    private let path: String
    private let busyTimeout: Duration
    private var statements: [String: SQLiteStatement] = [:]

    /// An open that finds the WAL at least this long truncates it (512 KiB of 4 KiB pages,
    /// which an open reads through in about half a millisecond).
    static let truncateWALAtFrames = 128

    /// Opens (creating if asked) the database at `path` and, unless `configure` is false, puts it
    /// in WAL mode with `synchronous=FULL`: a commit that returned survives a crash of the
    /// process and of the machine. Nothing is written to the file before `enableWAL()`.
    init(path: String, create: Bool, busyTimeoutMillis: Int32 = 5_000, configure: Bool = true) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags =
            SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(extendedCode: status, message: message)
        }
        handle = db
        self.path = path
        busyTimeout = .milliseconds(busyTimeoutMillis)
        // Thrown from here on, the handle is closed by deinit.
        try check(sqlite3_extended_result_codes(db, 1), "extended result codes cannot be turned on")
        try check(sqlite3_busy_timeout(db, busyTimeoutMillis), "the busy timeout cannot be set")
        if configure { try enableWAL() }
    }

    /// WAL, `synchronous=FULL` (`NORMAL` unless `durable`: a commit then survives a crash of
    /// the process but perhaps not of the machine), foreign keys on, and no trust in functions
    /// named by the schema.
    func enableWAL(durable: Bool = true) throws(SQLiteError) {
        // journal_mode answers the mode it ended in; anything but WAL is a file we cannot use.
        guard
            try retryingWhileBusy({ () throws(SQLiteError) in try query("PRAGMA journal_mode=WAL") }).first == [
                .text("wal")
            ]
        else {
            throw SQLiteError(extendedCode: SQLITE_CANTOPEN, message: "the database cannot be put in WAL mode")
        }
        try execute(
            "PRAGMA synchronous=\(durable ? "FULL" : "NORMAL"); PRAGMA foreign_keys=ON; PRAGMA trusted_schema=OFF")
        // Every command is a short process: its last connection closing would checkpoint the
        // WAL (two more fsyncs) and delete the WAL and shm files, which the next process then
        // makes again (with a sync of the directory). Both stay, and a commit is as durable.
        var persist: Int32 = 1
        try check(
            sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist),
            "the WAL cannot be kept between connections")
        try check(csqlite_no_checkpoint_on_close(handle), "the checkpoint on close cannot be turned off")
        truncateLongWAL()
    }

    /// A process that finds no other connection rebuilds the WAL's index by reading the whole
    /// WAL, and forgets what had been checkpointed: SQLite's automatic checkpoint (1,000
    /// pages, within a process) then never lets the WAL start over across processes that
    /// commit once each, and it grew by every commit for good, every open reading all of it.
    /// An open that finds it long checkpoints it and truncates it to nothing, waiting for no
    /// other connection: one that is busy (a watch reading) leaves it for a later open.
    private func truncateLongWAL() {
        guard let size = SmallFile.size(atPath: path + "-wal"), size >= Self.walBytes(frames: Self.truncateWALAtFrames)
        else { return }
        checkpointTruncating()
    }

    /// Copies the WAL into the main file and truncates it to nothing, waiting for no other
    /// connection: what another one still reads stays in the WAL, for a later checkpoint.
    func checkpointTruncating() { checkpoint(SQLITE_CHECKPOINT_TRUNCATE) }

    /// Copies the WAL into the main file (synced), waiting for no other connection, and leaves
    /// the WAL as it is: two syncs, where truncating it costs a third and a wait for readers.
    func checkpointPassively() { checkpoint(SQLITE_CHECKPOINT_PASSIVE) }

    /// Best effort, so nothing it answers is an error: a checkpoint that cannot run now (a
    /// reader is busy) leaves the WAL to a later one, and the timeouts are refused only for a
    /// closed handle.
    private func checkpoint(_ mode: Int32) {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Int32(busyTimeout / .milliseconds(1))) }
        sqlite3_wal_checkpoint_v2(handle, "main", mode, nil, nil)
    }

    /// The size of a WAL of `frames` pages: a 32-byte header, then a 24-byte header and a
    /// page each (4 KiB, SQLite's default here).
    static func walBytes(frames: Int) -> Int { 32 + frames * (24 + 4_096) }

    /// Runs `body` again while it fails busy, until the busy timeout has passed. For the few
    /// locks SQLite takes without calling its busy handler: switching a new file to WAL, and
    /// the cleanup a last connection does as it closes.
    private func retryingWhileBusy<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + busyTimeout
        var pauseMillis: Int32 = 1
        while true {
            do {
                return try body()
            } catch  where error.isBusy && clock.now + .milliseconds(pauseMillis) < deadline {
                sqlite3_sleep(pauseMillis)
                pauseMillis = min(pauseMillis * 2, 50)
            }
        }
    }

    deinit {
        statements = [:]  // finalized before the handle closes
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters and return nothing of interest.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    /// Runs `sql` with `values` bound to `?1…?n` and returns every row. Statements are prepared
    /// once per connection and reused.
    @discardableResult
    package func query(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow.Values] {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        return try statement.rows()
    }

    /// Runs `sql` and hands each row to `body` as it is stepped, without copying it into values:
    /// for large reads.
    package func forEachRow(_ sql: String, _ values: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        while let row = try statement.step() { try body(row) }
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// `body` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken at BEGIN, so the busy
    /// timeout covers it and no read can fail later on upgrading. Any error rolls back. BEGIN
    /// and COMMIT are prepared once, like any statement: parsed at each call, they were an
    /// eighth of a watch's commit per notification handed over.
    @discardableResult
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try query("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `body` inside a deferred transaction: one consistent snapshot for several reads.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN DEFERRED")
        defer { try? execute("COMMIT") }
        return try body()
    }

    /// `PRAGMA user_version`: the schema version this file was last migrated to.
    var userVersion: Int64 {
        get throws(SQLiteError) {
            guard case .integer(let version)? = try query("PRAGMA user_version").first?.first else { return 0 }
            return version
        }
    }

    func setUserVersion(_ version: Int64) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)")  // a pragma takes no bound parameter
    }

    private func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql, connection: self)
        statements[sql] = statement
        return statement
    }

    /// The error of a call that answered `status`. The connection's last error refines it
    /// only when it is of the same kind: a call that fails before it reaches the database
    /// (a bind out of range, a misuse) leaves the last one as it was.
    func error(_ status: Int32, sql: String?) -> SQLiteError {
        let last = sqlite3_extended_errcode(handle)
        guard last & 0xff == status & 0xff else {
            return SQLiteError(extendedCode: status, message: String(cString: sqlite3_errstr(status)), sql: sql)
        }
        return SQLiteError(extendedCode: last, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Throws the error of `status` unless it is `SQLITE_OK`, saying what could not be done.
    private func check(_ status: Int32, _ failure: String) throws(SQLiteError) {
        guard status != SQLITE_OK else { return }
        throw SQLiteError(extendedCode: status, message: "\(failure) (\(String(cString: sqlite3_errstr(status))))")
    }
}
