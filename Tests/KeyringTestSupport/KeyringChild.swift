import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A process a keyring test starts: its standard input a text given up front, its output and
/// errors in files. Spawned with `posix_spawn`, every signal unblocked and at its default (a
/// child of `Foundation.Process` started from a task has them all blocked), and killed by its
/// id when the test lets go of it.
public final class KeyringChild: Sendable {
    let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    /// Whether it was collected: its id may then be another process's, never to be signalled.
    private let reaped = Mutex(false)

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    public init(
        _ program: String, _ arguments: [String], environment: [String: String], input: String = "", folder: String,
        name: String
    )
        throws
    {
        (stdoutPath, stderrPath) = (folder + "/\(name).out", folder + "/\(name).err")
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var spawned: pid_t = 0
        let status = posix_spawn(&spawned, program, &actions, &attributes, argv, envp)
        close(ends[0])
        guard status == 0 else {
            close(ends[1])
            throw Failure("\(program) could not be started: \(String(cString: strerror(status)))")
        }
        pid = spawned
        // Small enough for the pipe's buffer: written whole, and the end closed, at once.
        _ = input.utf8CString.withUnsafeBufferPointer { write(ends[1], $0.baseAddress, $0.count - 1) }
        close(ends[1])
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Its exit status once it ended by itself within `seconds`, polled; else it is killed and
    /// that is an error.
    public func exitStatus(within seconds: Double) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var status: Int32 = 0
        while reaped.withLock({ reaped in
            if !reaped { reaped = waitpid(pid, &status, WNOHANG) == pid }
            return !reaped
        }) {
            guard ContinuousClock.now < deadline else {
                stop()
                throw Failure("\(pid) still ran after \(seconds) s: \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Kills it and collects it; nothing is left whatever state it was in.
    public func stop() {
        reaped.withLock { reaped in
            guard !reaped else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            reaped = true
        }
    }

    deinit { stop() }
}
