internal import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message and the statement's SQL.
/// Bound values are never part of it (they are tokens and device ids), so the description is
/// safe to log, as GRDB defaults to.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_CONSTRAINT_UNIQUE`, …).
    public let extendedCode: Int32
    public let message: String
    public let sql: String?

    /// The primary result code: the low byte of the extended one.
    public var code: Int32 { extendedCode & 0xff }

    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }

    init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    public var description: String {
        let statement = sql.map { " in \"\($0)\"" } ?? ""
        return "SQLite error \(extendedCode): \(message)\(statement)"
    }
}
