import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program that runs beside a test, its standard output and error in files of their own
/// (so a test reads them while it runs), stopped by the test, or killed when the test lets
/// go of it.
final class BackgroundProcess: Sendable {
    let stdoutPath: String
    let stderrPath: String
    private let pid = ChildID()
    private let finished: Task<RunResult, any Error>

    /// Starts `program`; `environment` is made from the standard error file once it is open
    /// (its device and inode are what systemd's JOURNAL_STREAM names). A `standardOutput` or
    /// `standardError` given is used instead of that stream's file.
    init(
        _ program: String, _ arguments: [String], folder: String, name: String, standardOutput: FileHandle? = nil,
        standardError: FileHandle? = nil, timeout: Double = 600,
        environment: (_ standardErrorFile: FileHandle) throws -> [String: String]
    ) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        stdoutPath = folder + "/\(name).out"
        stderrPath = folder + "/\(name).err"
        for path in [stdoutPath, stderrPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        let environment = try environment(err)
        let pid = self.pid
        finished = Task {
            defer {
                try? out.close()
                try? err.close()
            }
            return try await run(
                program, arguments, environment: environment, standardOutput: standardOutput ?? out,
                standardError: standardError ?? err, timeout: timeout
            ) { child in
                pid.value.withLock { $0 = child.processIdentifier }
            }
        }
    }

    /// Starts `program` with exactly `environment`.
    convenience init(
        _ program: String, _ arguments: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"],
        folder: String, name: String,
        standardOutput: FileHandle? = nil, timeout: Double = 600
    ) throws {
        try self.init(program, arguments, folder: folder, name: name, standardOutput: standardOutput, timeout: timeout)
        { _ in environment }
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The process's id, once it started.
    var processIdentifier: pid_t? { pid.value.withLock { $0 } }

    func send(_ signal: Int32) {
        if let pid = pid.value.withLock({ $0 }) { kill(pid, signal) }
    }

    /// Polls `condition` until it holds, failing with standard error's text after `seconds`.
    func until(_ what: String, within seconds: Double = 60, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw WatchTestFailure("timed out waiting until \(what)\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The first whole line it printed, waited for.
    func firstLine(_ what: String, within seconds: Double = 20) async throws -> String {
        try await until(what, within: seconds) { self.stdout.contains("\n") }
        return String(stdout.prefix { $0 != "\n" })
    }

    func stop(_ signal: Int32 = SIGTERM) async throws -> RunResult {
        send(signal)
        return try await finished.value
    }

    /// Waits for the process to end by itself.
    func ended() async throws -> RunResult { try await finished.value }

    /// Never leaves a process behind, whatever the test did.
    deinit { if let pid = pid.value.withLock({ $0 }) { kill(pid, SIGKILL) } }
}
