/// What can go wrong with a file of the home, naming the store it is by its type: what the
/// user sees depends on which store failed (only the outbox can be rebuilt from the chain).
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The home directory cannot be used as it was given.
    case home(path: String, problem: String)
    /// The home directory is as it should be but cannot be written to now (a read-only file
    /// system, a full disk): the machine's state, not the input's.
    case homeUnwritable(path: String, problem: String)
    /// The store's file was written by a newer version, whose schema this one does not know.
    case newer(Store, path: String, found: Int64, supported: Int64)
    /// The store's file is not a database, or a row in it cannot be read with this account's key.
    case damaged(Store, path: String, detail: String)
    /// A file of the store cannot be read or written as it is (disk full, I/O error, read-only,
    /// locked too long, not a regular file): the store is not damaged, the machine must change.
    case failed(Store, path: String, StoreFailure)

    /// The stores a home holds.
    public enum Store: Sendable, Hashable {
        /// The registration outbox (`outbox.sqlite`).
        case outbox
        /// What `adm-fetch` has shown, partners' keys and the watch cursors (`notifications.sqlite`).
        case notificationLog

        /// What the store is to the user.
        public var name: String {
            switch self {
            case .outbox: "the outbox store"
            case .notificationLog: "the notification log"
            }
        }

        /// What to do once a damaged file is moved aside: the outbox is rebuilt from the
        /// chain; the log only remembers, so a new one is enough.
        var afterMovingAside: String {
            switch self {
            case .outbox: " and run 'adm-push repair', which rebuilds it from the chain"
            case .notificationLog:
                ", and a new one is started: it has forgotten what was shown, and a watch resumes from the block its lease kept (or give it --from-height HEIGHT)"
            }
        }
    }

    /// A failed SQLite call, or a refused schema, on the file of `store` at `path`, as a user
    /// can act on it.
    package init(_ error: any Error, store: Store, path: String) {
        switch error {
        case let error as StoreError:
            self = error
        case MigrationError.newerSchema(let found, let supported):
            self = .newer(store, path: path, found: found, supported: supported)
        case let error as SQLiteError where error.isCorrupt:
            self = .damaged(store, path: path, detail: error.message)
        case let error as SQLiteError:
            self = .failed(
                store, path: path,
                error.isBusy ? .locked(holders: FileHolders.processes(holding: path)) : StoreFailure(error))
        default:
            self = .failed(store, path: path, .other(.thrown(error)))
        }
    }

    /// What went wrong and what to do, naming the file.
    public var description: String {
        switch self {
        case .home(let path, let problem):
            "the home directory \(path) cannot be used: \(problem)"
        case .homeUnwritable(let path, let problem):
            "the home directory \(path) cannot be written to: \(problem); make it writable, or give another --home"
        case .newer(_, let path, let found, let supported):
            "\(path) was written by a newer adm-push (schema \(found), this one knows \(supported)): use that version, or another --home"
        case .damaged(let store, let path, let detail):
            // A WAL goes aside with its index (the main file keeps what was checkpointed).
            "\(store.name) \(path) is damaged (\(detail)): move \(path.hasSuffix("-wal") ? "it and \(path.dropLast(4))-shm" : "it") aside\(store.afterMovingAside)"
        case .failed(let store, let path, let failure):
            "\(store.name) \(path) \(failure)"
        }
    }
}
