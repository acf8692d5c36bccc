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
}

enum Binaries {
    /// The products folder: where the test bundle itself was built.
    static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// A product of this package by name, or any program by absolute path.
    static func url(_ name: String) -> URL { name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name) }
}

/// Starts `name` with exactly `environment` (nothing inherited), feeds `input` on stdin, and
/// waits on a thread of its own so no cooperative thread blocks. Any of the three standard
/// streams can be given instead (a terminal, /dev/full); what is not given is a pipe. A child
/// still running after `timeout` seconds is killed, and the result says so.
///
/// The child starts with no signal blocked, as from a shell, unless `inheritingBlockedSignals`:
/// then it gets the mask of a task thread, which blocks nearly every signal, as any child of
/// `Foundation.Process` run from a task does (swift-corelibs-foundation#4772).
func run(
    _ name: String, _ arguments: [String], environment: [String: String] = [:], input: Data = Data(),
    standardInput: FileHandle? = nil, standardOutput: FileHandle? = nil, standardError: FileHandle? = nil,
    inheritingBlockedSignals: Bool = false, timeout: Double = 30, whileRunning: (@Sendable (Process) -> Void)? = nil
) async throws -> RunResult {
    let process = Process()
    process.executableURL = Binaries.url(name)
    process.arguments = arguments
    process.environment = environment
    let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
    process.standardOutput = standardOutput ?? stdout
    process.standardError = standardError ?? stderr
    process.standardInput = standardInput ?? stdin
    if inheritingBlockedSignals {
        try process.run()
    } else {
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                var none = sigset_t()
                sigemptyset(&none)
                pthread_sigmask(SIG_SETMASK, &none, nil)
                started.resume(with: Result { try process.run() })
            }
        }
    }
    let killed = Mutex(false)
    // Weakly: a process (and its pipes' descriptors) must not outlive its run by the timeout;
    // hundreds of runs a minute would otherwise hold over a thousand descriptors open, which
    // crashes Foundation's Process.run.
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak process] in
        killed.withLock { killed in
            guard let process, process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            killed = true
        }
    }
    return await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            if standardInput == nil {
                stdin.fileHandleForWriting.write(input)
                try? stdin.fileHandleForWriting.close()
            }
            whileRunning?(process)
            // Drain both pipes before waiting, so a chatty child cannot fill one and stall.
            let group = DispatchGroup()
            nonisolated(unsafe) var out = Data(), err = Data()
            if standardOutput == nil {
                DispatchQueue.global().async(group: group) { out = stdout.fileHandleForReading.readDataToEndOfFile() }
            }
            if standardError == nil {
                DispatchQueue.global().async(group: group) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
            }
            group.wait()
            if standardOutput == nil { try? stdout.fileHandleForReading.close() }
            if standardError == nil { try? stderr.fileHandleForReading.close() }
            process.waitUntilExit()
            let bySignal = process.terminationReason == .uncaughtSignal
            continuation.resume(returning: RunResult(
                status: process.terminationStatus, signal: bySignal ? process.terminationStatus : nil,
                timedOut: killed.withLock { $0 }, stdout: String(decoding: out, as: UTF8.self),
                stderr: String(decoding: err, as: UTF8.self)))
        }
    }
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
