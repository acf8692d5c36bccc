/// A schema change, applied once, in order, in its own write transaction, numbered by
/// `PRAGMA user_version`.
package struct Migration: Sendable {
    let version: Int64
    let sql: String
    /// What SQL alone cannot do (SQLite 3.40 cannot pack integers into a blob), run after
    /// `sql` in the same transaction.
    let then: @Sendable (SQLiteConnection) throws -> Void

    package init(version: Int64, sql: String, then: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in }) {
        self.version = version
        self.sql = sql
        self.then = then
    }
}

enum MigrationError: Error, Sendable, Hashable {
    /// The file was written by a newer adm-push: opening it could lose what that version keeps.
    case newerSchema(found: Int64, supported: Int64)
}

extension SQLiteConnection {
    /// Throws `newerSchema` for a file migrated past the last of `migrations`; reads only.
    func refuseNewer(than migrations: [Migration]) throws {
        let supported = migrations.last?.version ?? 0
        let found = try userVersion
        guard found <= supported else { throw MigrationError.newerSchema(found: found, supported: supported) }
    }

    /// Brings the schema up to the last of `migrations` (sorted by version, starting at 1).
    func migrate(_ migrations: [Migration]) throws {
        try refuseNewer(than: migrations)
        let found = try userVersion
        for migration in migrations where migration.version > found {
            try writeTransaction {
                // Re-read inside the lock: another process may have migrated meanwhile.
                guard try userVersion < migration.version else { return }
                try execute(migration.sql)
                try migration.then(self)
                try setUserVersion(migration.version)
            }
        }
    }
}
