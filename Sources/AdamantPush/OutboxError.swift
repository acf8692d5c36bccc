/// What can go wrong with the outbox, each with what to do about it.
public enum OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The home directory cannot be used.
    case home(path: String, problem: String)
    /// The store file was written by a newer adm-push.
    case newerStore(path: String, found: Int64, supported: Int64)
    /// The store file is not a database, or a row in it cannot be read with this account's key.
    case damagedStore(path: String, detail: String)
    /// Any other storage failure (disk full, I/O error, locked for too long).
    case store(String)

    /// A failure of the store in `file`, which its damage must name: the advice is about that file.
    init(storeFailure error: any Error, file: String = OutboxStore.fileName) {
        if let error = error as? OutboxError { self = error; return }
        if let error = error as? SQLiteError, error.isCorrupt { self = .damagedStore(path: file, detail: error.message); return }
        self = .store("\(error)")
    }

    /// What went wrong and what to do, naming the file.
    public var description: String {
        switch self {
        case .home(let path, let problem):
            "the home directory \(path) cannot be used: \(problem)"
        case .newerStore(let path, let found, let supported):
            "\(path) was written by a newer adm-push (schema \(found), this one knows \(supported)): use that version, or another --home"
        case .damagedStore(let path, let detail) where path.hasSuffix(NotificationLog.fileName):
            // Repair rebuilds the outbox, not the log; the log only remembers, so a new one does.
            "the notification log \(path) is damaged (\(detail)): move it aside, and a new one is started (which has forgotten what was shown)"
        case .damagedStore(let path, let detail):
            "the outbox store \(path) is damaged (\(detail)): move it aside and run 'adm-push repair', which rebuilds it from the chain"
        case .store(let detail):
            "the outbox store failed: \(detail)"
        }
    }
}
