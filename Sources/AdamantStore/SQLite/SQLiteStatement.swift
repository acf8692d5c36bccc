internal import CSQLite

/// SQLite copies bound text and blobs when given this destructor, so a temporary Swift buffer
/// may be passed. The C macro casts -1 to a function pointer, which Swift cannot import.
private let transient = csqlite_transient()

/// One prepared statement, owned by the connection that made it and used only on its thread.
/// Finalized in `deinit`; the connection keeps its cached statements alive until it closes.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    let sql: String

    init(_ sql: String, connection: SQLiteConnection) throws(SQLiteError) {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw connection.error(status, sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to its parameters `?1…?n`.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw SQLiteError(
                extendedCode: SQLITE_RANGE,
                message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            if case .blob(let bytes) = value, bytes.count >= Int32.max {
                throw SQLiteError(extendedCode: SQLITE_TOOBIG, message: "a value too large to store", sql: sql)
            }
            if case .text(let text) = value, text.utf8.count >= Int32.max {
                throw SQLiteError(extendedCode: SQLITE_TOOBIG, message: "a value too large to store", sql: sql)
            }
            let status: Int32 =
                switch value {
                case .null: sqlite3_bind_null(handle, index)
                case .integer(let number): sqlite3_bind_int64(handle, index, number)
                case .text(let text):
                    // With its byte length, not -1: a NUL inside the text must not cut it short. The
                    // terminator keeps the pointer non-nil for "" (nil would bind NULL).
                    (Array(text.utf8) + [0]).withUnsafeBufferPointer { utf8 in
                        utf8.withMemoryRebound(to: CChar.self) {
                            sqlite3_bind_text(handle, index, $0.baseAddress, Int32(utf8.count - 1), transient)
                        }
                    }
                case .blob(let bytes):
                    // A nil pointer would bind NULL; an empty blob stays a blob.
                    bytes.withUnsafeBytes {
                        sqlite3_bind_blob(
                            handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                            transient)
                    }
                }
            guard status == SQLITE_OK else { throw connection.error(status, sql: sql) }
        }
    }

    /// The next row, or nil when the statement is done (and reset, so no statement is left
    /// running when the transaction commits).
    func step() throws(SQLiteError) -> SQLiteRow? {
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return SQLiteRow(statement: handle)
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return nil
        case let status:
            sqlite3_reset(handle)
            throw connection.error(status, sql: sql)
        }
    }

    /// Runs to completion, collecting every row.
    func rows() throws(SQLiteError) -> [SQLiteRow.Values] {
        var rows: [SQLiteRow.Values] = []
        while let row = try step() { rows.append(row.values) }
        return rows
    }
}

/// A value as SQLite stores it.
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// The current row of a stepping statement; valid only until the next step.
package struct SQLiteRow {
    package typealias Values = [SQLiteValue]
    fileprivate let statement: OpaquePointer

    /// One column read in place, nil when it holds another type (a file changed elsewhere).
    package func integer(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_INTEGER ? sqlite3_column_int64(statement, column) : nil
    }

    package func blob(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    var values: Values {
        (0..<sqlite3_column_count(statement)).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(statement, column))
            case SQLITE_TEXT:
                // Text first, then its length: the order SQLite documents for one conversion.
                guard let text = sqlite3_column_text(statement, column) else { return .text("") }
                let count = Int(sqlite3_column_bytes(statement, column))
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, column))
                guard count > 0, let base = sqlite3_column_blob(statement, column) else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
            default:
                // NULL, or a REAL that the STRICT schema has no column for (a foreign file).
                return .null
            }
        }
    }
}
