import AdamantCLI
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a built command of this package as a real process and collects what it printed.
struct RunResult: Sendable {
    let status: Int32
    /// The signal that ended it, if one did (then `status` is that signal's number too).
    let signal: Int32?
    /// Killed by the runner's deadline: it was still running.
    let timedOut: Bool
    let stdout: String
    let stderr: String
    /// From the spawn to the exit, seen by the thread that waits for it: the child's own time,
    /// not the test task's, which a loaded suite may resume late.
    var elapsed: Duration = .zero
    /// When that thread saw it exit.
    var exitedAt: ContinuousClock.Instant = .now
}

enum Binaries {
    /// The products folder: where the test bundle itself was built.
    static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// A product of this package by name, or any program by absolute path.
    static func url(_ name: String) -> URL {
        name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name)
    }
}

/// A child started by `run`, for tests that signal it while it runs.
struct SpawnedProcess: Sendable {
    let processIdentifier: pid_t
}

/// Starts `name` with exactly `environment` (nothing inherited), feeds `input` on stdin, and
/// waits on threads of its own so no cooperative thread blocks. Any of the three standard
/// streams can be given instead (a terminal, /dev/full); what is not given is a pipe. A child
/// still running after `timeout` seconds is killed, and the result says so.
///
/// The child starts with no signal blocked and every signal at its default, as from a shell,
/// unless `inheritingBlockedSignals`: then every signal is blocked, as in any child of
/// `Foundation.Process` run from a task (swift-corelibs-foundation#4772). It is started with
/// `posix_spawn` directly: `Foundation.Process.run` crashes when the test process has many
/// descriptors open (swift-corelibs-foundation#5472), which the devnet suites do.
func run(
    _ name: String, _ arguments: [String], environment: [String: String] = [:], input: Data = Data(),
    standardInput: FileHandle? = nil, standardOutput: FileHandle? = nil, standardError: FileHandle? = nil,
    inheritingBlockedSignals: Bool = false, timeout: Double = 30,
    whileRunning: (@Sendable (SpawnedProcess) -> Void)? = nil
) async throws -> RunResult {
    struct SpawnFailed: Error, CustomStringConvertible { let description: String }
    func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SpawnFailed(description: "pipe: \(String(cString: strerror(errno)))") }
        // Close-on-exec, so no other child started meanwhile keeps this pipe open.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
    let stdin = standardInput == nil ? try makePipe() : nil
    let stdout = standardOutput == nil ? try makePipe() : nil
    let stderr = standardError == nil ? try makePipe() : nil

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin?.read ?? standardInput!.fileDescriptor, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout?.write ?? standardOutput!.fileDescriptor, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr?.write ?? standardError!.fileDescriptor, 2)
    let path = Binaries.url(name).path
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var spawned: pid_t = 0
    let spawnedAt = ContinuousClock.now
    let status =
        ChildProcess.withShellAttributes(blockingEverySignal: inheritingBlockedSignals) { attributes in
            posix_spawn(&spawned, path, &actions, &attributes, argv, envp)
        } ?? EINVAL
    let pid = spawned
    // The child has its copies; the parent keeps only its own ends.
    for fd in [stdin?.read, stdout?.write, stderr?.write].compactMap({ $0 }) { close(fd) }
    guard status == 0 else {
        for fd in [stdin?.write, stdout?.read, stderr?.read].compactMap({ $0 }) { close(fd) }
        throw SpawnFailed(description: "posix_spawn \(path): \(String(cString: strerror(status)))")
    }
    let child = SpawnedProcess(processIdentifier: pid)

    // Killed at the deadline unless it has exited (checked under the lock the reaper takes
    // before the pid can be reused).
    let state = Mutex((exited: false, killed: false))
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
        state.withLock { state in
            guard !state.exited else { return }
            kill(pid, SIGKILL)
            state.killed = true
        }
    }
    return await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            if let stdin {
                input.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(stdin.write, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0 { if errno == EINTR { continue } else { break } }
                        offset += written
                    }
                }
                close(stdin.write)
            }
            whileRunning?(child)
            // Drain both pipes before waiting, so a chatty child cannot fill one and stall. Not
            // on DispatchQueue.global(): on Linux its workers are the ones tasks run on, and each
            // read holds one for the child's whole life (the full suite's tasks waited 30 s).
            let group = DispatchGroup()
            nonisolated(unsafe) var out = Data()
            nonisolated(unsafe) var err = Data()
            if let stdout { drainOnOwnThread(group) { out = readToEnd(stdout.read) } }
            if let stderr { drainOnOwnThread(group) { err = readToEnd(stderr.read) } }
            group.wait()
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            let exitedAt = ContinuousClock.now
            let killed = state.withLock { state in
                state.exited = true
                return state.killed
            }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let signal: Int32? = raw & 0x7f == 0 ? nil : raw & 0x7f
            continuation.resume(
                returning: RunResult(
                    status: signal ?? (raw >> 8) & 0xff, signal: signal, timedOut: killed,
                    stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
                    elapsed: spawnedAt.duration(to: exitedAt), exitedAt: exitedAt))
        }
    }
}

/// Runs `read` on a new thread, inside `group`.
private func drainOnOwnThread(_ group: DispatchGroup, _ read: @escaping @Sendable () -> Void) {
    group.enter()
    Thread.detachNewThread {
        read()
        group.leave()
    }
}

/// Everything until end of file from `fd`, which is then closed.
private func readToEnd(_ fd: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            data.append(contentsOf: buffer[0..<count])
            continue
        }
        if count < 0 && errno == EINTR { continue }
        break
    }
    close(fd)
    return data
}

/// Polls `condition` every millisecond until it holds or `seconds` pass; whether it held.
func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}
