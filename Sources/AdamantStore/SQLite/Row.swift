/// Typed reads of a row's columns. nil for a value of another type: a file changed outside
/// adm-push, reported as damaged rather than trapped on.
extension Array where Element == SQLiteValue {
    package func integer(_ column: Int) -> Int64? {
        guard indices.contains(column), case .integer(let value) = self[column] else { return nil }
        return value
    }

    package func text(_ column: Int) -> String? {
        guard indices.contains(column), case .text(let value) = self[column] else { return nil }
        return value
    }

    package func blob(_ column: Int) -> [UInt8]? {
        guard indices.contains(column), case .blob(let value) = self[column] else { return nil }
        return value
    }

    package func isNull(_ column: Int) -> Bool {
        indices.contains(column) && self[column] == .null
    }
}
