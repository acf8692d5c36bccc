import AdamantNodes
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program started as `ChildProcess` starts one, with its standard output and error each on
/// a pipe this process reads, line by line as they come: for a command that drives the
/// package's other commands and reacts to what they say (`adm-devnet demo`). What it is given
/// goes by its arguments and files, never by standard input.
public final class PipedProcess: Sendable {
    /// Which of the program's outputs a line came from.
    public enum Stream: Sendable, Hashable {
        /// Standard output, and standard error.
        case output, error
    }

    /// One line, without its newline, and when it was read.
    public struct Line: Sendable {
        /// The output it came from.
        public let stream: Stream
        /// The line, bytes that are not UTF-8 replaced.
        public let text: String
        /// When it was read.
        public let time: ContinuousClock.Instant
    }

    /// Every line of both outputs, in the order they were read; ends when the program closed
    /// both (it ended, or its pipes did).
    public let lines: AsyncStream<Line>
    private let pid: pid_t
    private let reaped = Mutex(false)

    /// Starts `path` with `arguments` and exactly `environment`.
    public init(_ path: String, _ arguments: [String], environment: [String: String]) throws(ChildProcess.SpawnError) {
        var output: [Int32] = [-1, -1]
        var error: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw .refused(path: path, errno: errno) }
        guard pipe(&error) == 0 else {
            let code = errno
            close(output[0])
            close(output[1])
            throw .refused(path: path, errno: code)
        }
        // Close-on-exec, so a program started from elsewhere gets neither end (Swift's Glibc
        // module has no pipe2). The spawn's dup2 gives the child its ends without the flag.
        for end in output + error { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let spawned = ChildProcess.spawn(path, arguments, environment, outputs: (output[1], error[1]))
        close(output[1])
        close(error[1])
        switch spawned {
        case .success(let pid): self.pid = pid
        case .failure(let failure):
            close(output[0])
            close(error[0])
            throw failure
        }
        let (lines, continuation) = AsyncStream.makeStream(of: Line.self)
        self.lines = lines
        let open = Mutex(2)
        for (descriptor, stream) in [(output[0], Stream.output), (error[0], .error)] {
            DetachedThread.start {
                Self.readLines(descriptor) { continuation.yield(Line(stream: stream, text: $0, time: .now)) }
                close(descriptor)
                if open.withLock({ open in
                    open -= 1
                    return open == 0
                }) {
                    continuation.finish()
                }
            }
        }
    }

    /// Asks the program to stop (SIGTERM), unless it was waited for already.
    public func terminate() {
        reaped.withLock { reaped in if !reaped { kill(pid, SIGTERM) } }
    }

    /// How the program ended, once it has; waited for on a thread of its own.
    public func wait() async -> ChildProcess.Outcome {
        await withCheckedContinuation { continuation in
            DetachedThread.start { [self] in
                // Seen ended but not reaped first, so `terminate` can never signal a reused pid.
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
                self.reaped.withLock { $0 = true }
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                let signal = raw & 0x7f
                continuation.resume(returning: signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal))
            }
        }
    }

    /// Runs `path` to its end: how it ended, and everything it wrote to each output.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String])
        async throws(ChildProcess.SpawnError) -> (outcome: ChildProcess.Outcome, output: String, error: String)
    {
        let process = try PipedProcess(path, arguments, environment: environment)
        var written: [Stream: String] = [:]
        for await line in process.lines { written[line.stream, default: ""] += line.text + "\n" }
        return (await process.wait(), written[.output] ?? "", written[.error] ?? "")
    }

    /// Each line read from `descriptor` until its end; a last line without a newline too.
    private static func readLines(_ descriptor: Int32, _ line: (String) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: "\n") {
                    line(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                } else {
                    pending.append(byte)
                }
            }
        }
        if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
    }
}
