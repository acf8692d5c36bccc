internal import CSQLite

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
