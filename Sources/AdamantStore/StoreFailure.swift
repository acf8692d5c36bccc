internal import CSQLite

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a file of the home cannot be used as it is, with what to do. The SQL that failed is
/// never part of it: it tells the user nothing they can act on.
public enum StoreFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file system has no room left.
    case diskFull
    /// The file or its directory cannot be written.
    case readOnly
    /// The disk failed a read or a write: what reported it.
    case ioError(Cause)
    /// Another process held the file's write lock past the wait: the processes that have it
    /// open, when they can be told.
    case locked(holders: [String])
    /// Something other than a regular file is there (what it is).
    case notARegularFile(String)
    /// Anything else: the failure as it came.
    case other(Cause)

    init(_ error: SQLiteError) {
        switch error.code {
        case SQLITE_FULL: self = .diskFull
        case SQLITE_READONLY, SQLITE_PERM: self = .readOnly
        case SQLITE_IOERR: self = .ioError(.sqlite(error))
        case SQLITE_BUSY, SQLITE_LOCKED: self = .locked(holders: [])
        default: self = .other(.sqlite(error))
        }
    }

    /// What failed under a store: SQLite, a system call, or an error a store's own work threw.
    /// Said in SQLite's or the system's words, never with the SQL.
    public enum Cause: Sendable, Hashable, CustomStringConvertible {
        /// A failed SQLite call.
        case sqlite(SQLiteError)
        /// A failed system call on a file of the home, by its errno.
        case system(errno: Int32)
        /// An error a store's work threw that is neither: the work is given as any closure.
        case thrown(any Error)

        /// SQLite's message, the system's words for the errno, or the error's description.
        public var description: String {
            switch self {
            case .sqlite(let error): error.message
            case .system(let code): String(cString: strerror(code))
            case .thrown(let error): "\(error)"
            }
        }

        /// `any Error` offers no equality of its own: two are equal when of one type and said
        /// alike.
        public static func == (lhs: Cause, rhs: Cause) -> Bool {
            switch (lhs, rhs) {
            case (.sqlite(let left), .sqlite(let right)): left == right
            case (.system(let left), .system(let right)): left == right
            case (.thrown(let left), .thrown(let right)):
                type(of: left) == type(of: right) && "\(left)" == "\(right)"
            default: false
            }
        }

        /// Hashes what `==` compares.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .sqlite(let error): hasher.combine(error)
            case .system(let code): hasher.combine(code)
            case .thrown(let error): hasher.combine("\(error)")
            }
        }
    }

    /// The rest of a sentence that begins with the file's name and path.
    public var description: String {
        switch self {
        case .diskFull:
            "cannot be written: the disk is full. Free some space and run the command again; what it held is intact"
        case .readOnly:
            "cannot be written: it or its directory is read-only. Make both writable by you (chmod u+w), or give another --home"
        case .ioError(let cause):
            "cannot be read or written: the disk reported an error (\(cause)). Check the disk; what was committed before is intact"
        case .locked(let holders) where !holders.isEmpty:
            "stayed locked past the wait; it is open in \(holders.joined(separator: ", ")): let that finish, then run again"
        case .locked:
            "stayed locked by another process past the wait: let the other adm-push or adm-fetch on this home finish, then run again"
        case .notARegularFile(let kind):
            "is not a regular file but \(kind): remove it, and a new one is made"
        case .other(let cause):
            "cannot be used: \(cause)"
        }
    }
}
