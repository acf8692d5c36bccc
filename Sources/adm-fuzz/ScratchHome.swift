import Foundation
import Synchronization

/// Homes for the targets that open real stores. Each input gets a fresh one, in a directory of
/// this process's own: on /dev/shm when there is one, a RAM disk, so a store's synchronous
/// commits cost no disk flush. A home is removed two inputs later (its store may still be
/// closing on its queue when the input returns), the directory when the process exits, and
/// those of processes that died (a crash skips the exit handler) the next time one starts.
enum ScratchHome {
    static let prefix = "adm-fuzz-"

    static let root: String = {
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        removeAbandoned(in: base)
        let path = "\(base)/\(prefix)\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        guard mkdir(path, 0o700) == 0 else { fatalError("cannot make \(path): \(String(cString: strerror(errno)))") }
        atexit { try? FileManager.default.removeItem(atPath: ScratchHome.root) }
        return path
    }()

    private static let made = Atomic<Int>(0)

    /// A new empty home, mode 0700.
    static func fresh() -> String {
        let number = made.add(1, ordering: .relaxed).newValue
        try? FileManager.default.removeItem(atPath: "\(root)/\(number - 2)")
        let path = "\(root)/\(number)"
        guard mkdir(path, 0o700) == 0 else { fatalError("cannot make \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// The directories of adm-fuzz processes that no longer run.
    private static func removeAbandoned(in base: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid > 0, kill(pid, 0) == -1, errno == ESRCH else {
                continue
            }
            try? FileManager.default.removeItem(atPath: "\(base)/\(name)")
        }
    }
}
