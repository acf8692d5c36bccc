internal import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message and the statement's SQL.
/// Bound values are never part of it (they are tokens and device ids), so the description is
/// safe to log, as GRDB defaults to.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_CONSTRAINT_UNIQUE`, …).
    public let extendedCode: Int32
    /// SQLite's own words.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    /// The primary result code: the low byte of the extended one.
    public var code: Int32 { extendedCode & 0xff }

    /// Another connection holds a lock: worth trying again.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The file is damaged or not a database.
    public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    /// A constraint refused the change.
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }

    init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The code, the message and the statement; never a bound value.
    public var description: String {
        let statement = sql.map { " in \"\($0)\"" } ?? ""
        return "SQLite error \(extendedCode): \(message)\(statement)"
    }
}
