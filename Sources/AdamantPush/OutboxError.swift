internal import CSQLite

/// What can go wrong with the outbox, each with what to do about it.
public enum OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The home directory cannot be used.
    case home(path: String, problem: String)
    /// The store file was written by a newer adm-push.
    case newerStore(path: String, found: Int64, supported: Int64)
    /// The store file is not a database, or a row in it cannot be read with this account's key.
    case damagedStore(path: String, detail: String)
    /// A file of the home cannot be read or written as it is (disk full, I/O error, read-only,
    /// locked too long, not a regular file): the store is not damaged, the machine must change.
    case storeFailed(path: String, StoreFailure)
    /// The service's public key is not a key a signal can be encrypted to.
    case unusableServiceKey

    /// A failure of the store at `path`, as a user can act on it.
    init(storeFailure error: any Error, path: String) {
        if let error = error as? OutboxError { self = error; return }
        guard let error = error as? SQLiteError else { self = .storeFailed(path: path, .other("\(error)")); return }
        if error.isCorrupt { self = .damagedStore(path: path, detail: error.message); return }
        self = .storeFailed(path: path, error.isBusy ? .locked(holders: FileHolders.processes(holding: path)) : StoreFailure(error))
    }

    /// What went wrong and what to do, naming the file.
    public var description: String {
        switch self {
        case .home(let path, let problem):
            "the home directory \(path) cannot be used: \(problem)"
        case .newerStore(let path, let found, let supported):
            "\(path) was written by a newer adm-push (schema \(found), this one knows \(supported)): use that version, or another --home"
        case .damagedStore(let path, let detail):
            Self.damage(of: path, detail)
        case .storeFailed(let path, let failure):
            "\(Self.name(of: path)) \(path) \(failure)"
        case .unusableServiceKey:
            "the service's public key cannot be used for encryption: check --service-public-key"
        }
    }

    /// The damage of the file at `path`, and what to do. A WAL goes aside with its index (the
    /// main file keeps what was checkpointed). Repair rebuilds the outbox, not the log; the log
    /// only remembers, so a new one does.
    static func damage(of path: String, _ detail: String) -> String {
        let aside = path.hasSuffix("-wal") ? "it and \(path.dropLast(4))-shm" : "it"
        if isNotificationLog(path) {
            return "the notification log \(path) is damaged (\(detail)): move \(aside) aside, and a new one is started (which has forgotten what was shown)"
        }
        return "the outbox store \(path) is damaged (\(detail)): move \(aside) aside and run 'adm-push repair', which rebuilds it from the chain"
    }

    /// What the file at `path` (a store, or its WAL or shared-memory file) is to the user.
    static func name(of path: String) -> String {
        if isNotificationLog(path) { return "the notification log" }
        if fileName(of: path).hasPrefix(OutboxStore.fileName) { return "the outbox store" }
        if path.hasSuffix(".journal") { return "the watch journal" }
        return "the file"
    }

    private static func isNotificationLog(_ path: String) -> Bool { fileName(of: path).hasPrefix(NotificationLog.fileName) }

    private static func fileName(of path: String) -> Substring { path.split(separator: "/").last ?? Substring(path) }
}

/// Why a file of the home cannot be used as it is, with what to do. The SQL that failed is
/// never part of it: it tells the user nothing they can act on.
public enum StoreFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file system has no room left.
    case diskFull
    /// The file or its directory cannot be written.
    case readOnly
    /// The disk failed a read or a write (SQLite's words).
    case ioError(String)
    /// Another process held the file's write lock past the wait: the processes that have it
    /// open, when they can be told.
    case locked(holders: [String])
    /// Something other than a regular file is there (what it is).
    case notARegularFile(String)
    /// Anything else, in SQLite's or the system's words.
    case other(String)

    init(_ error: SQLiteError) {
        switch error.code {
        case SQLITE_FULL: self = .diskFull
        case SQLITE_READONLY, SQLITE_PERM: self = .readOnly
        case SQLITE_IOERR: self = .ioError(error.message)
        case SQLITE_BUSY, SQLITE_LOCKED: self = .locked(holders: [])
        default: self = .other(error.message)
        }
    }

    /// The rest of a sentence that begins with the file's name and path.
    public var description: String {
        switch self {
        case .diskFull:
            "cannot be written: the disk is full. Free some space and run the command again; what it held is intact"
        case .readOnly:
            "cannot be written: it or its directory is read-only. Make both writable by you (chmod u+w), or give another --home"
        case .ioError(let message):
            "cannot be read or written: the disk reported an error (\(message)). Check the disk; what was committed before is intact"
        case .locked(let holders) where !holders.isEmpty:
            "stayed locked past the wait; it is open in \(holders.joined(separator: ", ")): let that finish, then run again"
        case .locked:
            "stayed locked by another process past the wait: let the other adm-push or adm-fetch on this home finish, then run again"
        case .notARegularFile(let kind):
            "is not a regular file but \(kind): remove it, and a new one is made"
        case .other(let message):
            "cannot be used: \(message)"
        }
    }
}
