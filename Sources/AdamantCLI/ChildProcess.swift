import AdamantNodes
import CSpawn
import Dispatch
import Synchronization

#if canImport(Glibc)
    @preconcurrency package import Glibc
#elseif canImport(Musl)
    @preconcurrency package import Musl
#elseif canImport(Darwin)
    package import Darwin
#endif

/// Runs a program the way a shell would: no signal blocked and every signal at its default
/// in the child, whatever this thread blocks or ignores. `Foundation.Process` passes on the
/// spawning thread's mask, which on a task or dispatch thread blocks nearly everything
/// (swift-corelibs-foundation#4772). The child inherits standard output and error, reads
/// /dev/null, gets no other descriptor of this process, and gets its own process group, so a
/// timeout or a cancellation stops what it started too.
public enum ChildProcess {
    /// Between SIGTERM, when the waiting task is cancelled, and SIGKILL.
    public static let stopGrace: Duration = .seconds(2)

    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// Still running at the timeout; killed.
        case timedOut(Duration)
        case notStarted(SpawnError)

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
    /// (never a cooperative one) until it ends or `timeout` passes. Cancelling the calling
    /// task stops its process group: SIGTERM, then SIGKILL after `stopGrace`.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String], timeout: Duration)
        async -> Outcome
    {
        let pid: pid_t
        switch spawn(path, arguments, environment) {
        case .success(let spawned): pid = spawned
        case .failure(let reason): return .notStarted(reason)
        }
        // Signals go to the group only until it is reaped: checked under the lock the reaper
        // takes before the pid can be reused.
        let state = Mutex((exited: false, killed: false))
        let signalGroup = { @Sendable (signal: Int32, delay: Duration, isTimeout: Bool) in
            DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds) {
                state.withLock { state in
                    guard !state.exited else { return }
                    kill(-pid, signal)
                    if isTimeout { state.killed = true }
                }
            }
        }
        signalGroup(SIGKILL, timeout, true)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
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
                    continuation.resume(
                        returning: killed
                            ? .timedOut(timeout) : signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal))
                }
            }
        } onCancel: {
            signalGroup(SIGTERM, .zero, false)
            signalGroup(SIGKILL, stopGrace, false)
        }
    }

    /// Starts `path` as `run` does, and lets it run as long as it likes: what a click opens
    /// (a browser `xdg-open` starts may stay for hours) is never signalled from here, and
    /// outlives this process. Its standard output is this process's standard error: what a
    /// browser prints is no line of this one's output. It is reaped on a thread of its own,
    /// and `ended` told how. Returns why it could not start, or nil.
    public static func launch(
        _ path: String, _ arguments: [String], environment: [String: String],
        ended: @escaping @Sendable (Outcome) -> Void
    ) -> SpawnError? {
        switch spawn(path, arguments, environment, outputToStandardError: true) {
        case .failure(let reason): return reason
        case .success(let pid):
            DetachedThread.start {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                let signal = raw & 0x7f
                ended(signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal))
            }
            return nil
        }
    }

    /// Why a program could not be started.
    public enum SpawnError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The spawn's attributes or file actions cannot be set.
        case attributes
        /// `posix_spawn` refused the program (its errno).
        case refused(path: String, errno: Int32)

        /// The reason, in the system's words.
        public var description: String {
            switch self {
            case .attributes: "the spawn attributes cannot be set"
            case .refused(let path, let code): "\(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Starts `path` in a process group of its own, reading /dev/null, with no descriptor of
    /// this process but its standard output and error, or `outputs` in their place.
    static func spawn(
        _ path: String, _ arguments: [String], _ environment: [String: String], outputToStandardError: Bool = false,
        outputs: (output: Int32, error: Int32)? = nil
    ) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0,
            !outputToStandardError || posix_spawn_file_actions_adddup2(&actions, 2, 1) == 0,
            outputs.map({
                posix_spawn_file_actions_adddup2(&actions, $0.output, 1) == 0
                    && posix_spawn_file_actions_adddup2(&actions, $0.error, 2) == 0
            }) ?? true
        else {
            return .failure(.attributes)
        }
        // ENOSYS where the C library has no such action; nothing else can fail it.
        _ = cspawn_add_close_from(&actions, 3)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = withShellAttributes(newProcessGroup: true) { attributes in
            posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        }
        guard let status = spawned else {
            return .failure(.attributes)
        }
        guard status == 0 else {
            return .failure(.refused(path: path, errno: status))
        }
        return .success(pid)
    }

    /// Runs `body` with spawn attributes that start a child as a shell would: no signal
    /// blocked (every one with `blockingEverySignal`, as a child of `Foundation.Process` run
    /// from a task gets), every signal at its default, in a process group of its own if asked.
    /// nil when the attributes cannot be set. Every process this package starts uses them.
    package static func withShellAttributes<T>(
        newProcessGroup: Bool = false, blockingEverySignal: Bool = false, _ body: (inout posix_spawnattr_t) throws -> T
    ) rethrows -> T? {
        var attributes = posix_spawnattr_t()
        guard posix_spawnattr_init(&attributes) == 0 else { return nil }
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        var defaults = sigset_t()
        if blockingEverySignal { sigfillset(&mask) } else { sigemptyset(&mask) }
        sigfillset(&defaults)
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)
        guard posix_spawnattr_setsigmask(&attributes, &mask) == 0,
            posix_spawnattr_setsigdefault(&attributes, &defaults) == 0,
            !newProcessGroup || posix_spawnattr_setpgroup(&attributes, 0) == 0,
            posix_spawnattr_setflags(&attributes, Int16(flags)) == 0
        else { return nil }
        return try body(&attributes)
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch's deadlines.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
