import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a built command of this package as a real process and collects what it printed.
struct RunResult: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum Binaries {
    /// The products folder: where the test bundle itself was built.
    static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
}

/// Starts `name` with exactly `environment` (nothing inherited), feeds `input` on stdin, and
/// waits on a thread of its own so no cooperative thread blocks.
func run(
    _ name: String, _ arguments: [String], environment: [String: String] = [:], input: Data = Data(),
    standardInput: FileHandle? = nil, whileRunning: (@Sendable (Process) -> Void)? = nil
) async throws -> RunResult {
    let process = Process()
    process.executableURL = Binaries.url(name)
    process.arguments = arguments
    process.environment = environment
    let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = standardInput ?? stdin
    try process.run()
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
            DispatchQueue.global().async(group: group) { out = stdout.fileHandleForReading.readDataToEndOfFile() }
            DispatchQueue.global().async(group: group) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
            group.wait()
            process.waitUntilExit()
            continuation.resume(returning: RunResult(
                status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                stderr: String(decoding: err, as: UTF8.self)))
        }
    }
}
