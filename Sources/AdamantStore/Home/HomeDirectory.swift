#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The home directory's rules: only its owner may enter it (0700) or read its files (0600).
enum HomeDirectory {
    /// Creates `path` (and parents) 0700 if missing; refuses a home others can enter, another
    /// user's, or one that is not a directory. Returns the directory to use: `path`, or where
    /// the user's own link there leads (SQLite opens no path with a link in it).
    @discardableResult
    static func prepare(_ path: String) throws(StoreError) -> String {
        var directory = path
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw .home(path: path, problem: String(cString: strerror(errno))) }
            try makeDirectories(path)
            guard lstat(path, &info) == 0 else { throw .home(path: path, problem: String(cString: strerror(errno))) }
        }
        // A link of the user's own to a home elsewhere (another disk) is followed once; what
        // it leads to is held to the same rules.
        if info.st_mode & S_IFMT == S_IFLNK, info.st_uid == geteuid() {
            guard stat(path, &info) == 0, let resolved = realpath(path, nil) else {
                throw .home(
                    path: path,
                    problem: "it is a symbolic link that leads nowhere (\(String(cString: strerror(errno))))")
            }
            directory = String(cString: resolved)
            free(resolved)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .home(path: path, problem: "it is not a directory") }
        // Another user's home is theirs even to root: its outbox and log are their state, and a
        // chmod it could not run would be no advice.
        guard info.st_uid == geteuid() else {
            throw .home(
                path: path,
                problem:
                    "it belongs to uid \(info.st_uid), not to you (uid \(geteuid())); give a home of your own with --home"
            )
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .home(
                path: path,
                problem: "others can enter it (mode \(String(info.st_mode & 0o777, radix: 8))); run: chmod 700 \(path)")
        }
        guard access(path, W_OK) == 0 else {
            throw .homeUnwritable(path: path, problem: String(cString: strerror(errno)))
        }
        return directory
    }

    /// What a file of `mode` is, in words.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        default: "of another kind"
        }
    }

    /// `mkdir -p` with mode 0700 for what it creates.
    private static func makeDirectories(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                let reason = "\(prefix) cannot be created: \(String(cString: strerror(errno)))"
                if [EROFS, ENOSPC, EDQUOT, EIO].contains(errno) { throw .homeUnwritable(path: path, problem: reason) }
                throw .home(path: path, problem: reason)
            }
        }
    }

    /// The path of the database `fileName` in `home`, once the home is checked (`prepare`) and
    /// the file made 0600 if it was missing. SQLite gives a new database 0644 less the umask,
    /// and its WAL and shm files the database's own mode, so a file made here first keeps all
    /// three private without touching the process-wide umask.
    static func privateFile(_ fileName: String, of store: StoreError.Store, in home: String) throws(StoreError)
        -> String
    {
        let path = try prepare(home) + "/" + fileName
        let descriptor = open(path, O_RDONLY | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .failed(store, path: path, StoreFailure(errno: errno)) }
        defer { close(descriptor) }
        // SQLite would take a FIFO or a device for a database and fail on it in its own words.
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .failed(store, path: path, StoreFailure(errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .failed(store, path: path, .notARegularFile(kind(of: info.st_mode)))
        }
        for companion in [path + "-wal", path + "-shm"] where lstat(companion, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw .failed(store, path: companion, .notARegularFile(kind(of: info.st_mode)))
            }
        }
        return path
    }
}

extension SerialDatabase {
    /// The database `fileName` of `store` in `home` (0700, the file 0600), created and
    /// migrated if needed, `checked` tables checked whole, with its failures said as a user
    /// can act on them: a newer schema, a damaged file, or any other storage failure.
    package static func openPrivately(
        _ fileName: String, of store: StoreError.Store, in home: String, migrations: [Migration],
        checked: [String] = [], durable: Bool = true
    ) throws(StoreError) -> SerialDatabase {
        let path = try HomeDirectory.privateFile(fileName, of: store, in: home)
        if let problem = WriteAheadLog.unreadableCommits(of: path) {
            throw .damaged(store, path: path + "-wal", detail: problem)
        }
        do {
            return try SerialDatabase(
                path: path, create: true, migrations: migrations, checked: checked, durable: durable)
        } catch {
            throw StoreError(error, store: store, path: path)
        }
    }
}

extension StoreFailure {
    /// A failed system call on a file of the home, by its errno.
    init(errno code: Int32) {
        switch code {
        case ENOSPC, EDQUOT: self = .diskFull
        case EROFS, EACCES, EPERM: self = .readOnly
        case EIO: self = .ioError(.system(errno: code))
        default: self = .other(.system(errno: code))
        }
    }
}
