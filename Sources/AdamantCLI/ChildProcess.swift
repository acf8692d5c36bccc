import Dispatch
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program the way a shell would: no signal blocked and every signal at its default
/// in the child, whatever this thread blocks or ignores. `Foundation.Process` passes on the
/// spawning thread's mask, which on a task or dispatch thread blocks nearly everything
/// (swift-corelibs-foundation#4772). The child inherits standard output and error, reads
/// /dev/null, and gets its own process group, so a timeout kills what it started too.
public enum ChildProcess {
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// Still running at the timeout; killed.
        case timedOut(Duration)
        case notStarted(String)

        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "ended by signal \(signal)"
            case .timedOut(let limit): "still running after \(limit), killed"
            case .notStarted(let reason): "could not start: \(reason)"
            }
        }
    }

    /// Runs `path` with `arguments` and exactly `environment`, waiting on a thread of its own
    /// (never a cooperative one) until it ends or `timeout` passes.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String], timeout: Duration) async -> Outcome {
        let pid: pid_t
        switch spawn(path, arguments, environment) {
        case .success(let spawned): pid = spawned
        case .failure(let reason): return .notStarted(reason.description)
        }
        // Killed at the timeout unless reaped first; checked under the lock the reaper takes
        // before the pid can be reused.
        let state = Mutex((exited: false, killed: false))
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            state.withLock { state in
                guard !state.exited else { return }
                kill(-pid, SIGKILL)
                state.killed = true
            }
        }
        return await withCheckedContinuation { continuation in
            DetachedThread.start {
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
                let killed = state.withLock { state in
                    state.exited = true
                    return state.killed
                }
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                let signal = raw & 0x7f
                continuation.resume(returning: killed ? .timedOut(timeout) : signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal))
            }
        }
    }

    struct SpawnError: Error, CustomStringConvertible { let description: String }

    private static func spawn(_ path: String, _ arguments: [String], _ environment: [String: String]) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        sigfillset(&defaults)
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        guard posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0,
              posix_spawnattr_setsigmask(&attributes, &mask) == 0,
              posix_spawnattr_setsigdefault(&attributes, &defaults) == 0,
              posix_spawnattr_setpgroup(&attributes, 0) == 0,
              posix_spawnattr_setflags(&attributes, Int16(flags)) == 0
        else { return .failure(SpawnError(description: "the spawn attributes cannot be set")) }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else { return .failure(SpawnError(description: "\(path): \(String(cString: strerror(status)))")) }
        return .success(pid)
    }
}
