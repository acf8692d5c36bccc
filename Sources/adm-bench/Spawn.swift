import AdamantCLI
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Cold processes, ours and curl alike, started the same way: `posix_spawn`, then `wait4`
/// (Foundation.Process adds work of its own around the launch).
///
/// Peak RSS needs a small parent. Linux keeps, in the child's ru_maxrss, the high-water mark
/// of the memory it had before exec; a child posix_spawn'd from here had this process's
/// (devnet and all), so curl would read 29 MiB. GNU time forks the child from its own 1 MiB
/// and reports the wait4 rusage it gets: that is the child's own peak.
enum Spawn {
    struct Run: Sendable {
        let milliseconds: Double
        let exitStatus: Int32
    }

    /// Runs `path` with exactly `environment`, reading and writing /dev/null, and waits for it.
    /// Blocks the calling thread: only the devnet's own threads need to run meanwhile.
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid: pid_t = 0
        var start: UInt64 = 0
        let spawned =
            ChildProcess.withShellAttributes { attributes in
                quietly { actions in
                    start = now()
                    return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
                }
            } ?? EINVAL
        guard spawned == 0 else {
            throw BenchmarkError(description: "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while wait4(pid, &status, 0, nil) < 0 {
            guard errno == EINTR else {
                throw BenchmarkError(description: "wait4: \(String(cString: strerror(errno)))")
            }
        }
        let elapsed = milliseconds(since: start)
        let signal = status & 0x7f
        guard signal == 0 else { throw BenchmarkError(description: "\(path) was ended by signal \(signal)") }
        return Run(milliseconds: elapsed, exitStatus: (status >> 8) & 0xff)
    }

    /// File actions that give a child /dev/null for its standard input, output and error, for
    /// as long as `body` runs.
    static func quietly<T>(_ body: (inout posix_spawn_file_actions_t) throws -> T) rethrows -> T {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        return try body(&actions)
    }

    static let time = "/usr/bin/time"

    /// The peak RSS of one run, in MiB, through GNU time; nil without it.
    static func peakMiB(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Double? {
        guard FileManager.default.isExecutableFile(atPath: time) else { return nil }
        let report = try temporaryDirectory("rss") + "/maxrss"
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: report).deletingLastPathComponent().path)
        }
        _ = try run(time, ["-f", "%M", "-o", report, path] + arguments, environment: environment)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        // The last line is the figure; a line before it says the command failed.
        guard let kib = text.split(separator: "\n").last.flatMap({ Double($0) }) else {
            throw BenchmarkError(description: "GNU time printed no peak RSS for \(path): \(text)")
        }
        return kib / 1024
    }

    /// `name` built beside this adm-bench, or nil.
    static func sibling(_ name: String) -> String? {
        // /proc/self/exe, not argv[0], so a run through PATH or a symlink finds the same folder.
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Why a benchmark that found `name` or (with `orCurl`) curl missing is skipped: curl first,
    /// as the one not built here.
    static func missing(_ name: String, orCurl needsCurl: Bool = false) -> String {
        needsCurl && curl() == nil
            ? "curl is not installed" : "build \(name) beside adm-bench first (swift build -c release)"
    }

    /// curl from PATH (a bare default when PATH is unset), or nil.
    static func curl() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/curl" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    struct Command {
        let path: String
        let arguments: [String]
        var environment: [String: String] = [:]
        var expect: Int32 = 0
    }

    /// Runs ours, then the peer, alternately within `budget`, so both see the same load, and
    /// then a few more times each for the peak RSS. Checks every exit status.
    static func paired(_ budget: Budget, ours: Command, peer: Command) throws -> (
        ours: Timing, peer: Timing, oursPeak: Double?, peerPeak: Double?
    ) {
        var oursRuns: [Run] = []
        var peerRuns: [Run] = []
        let start = now()
        while budget.allowsAnother(after: oursRuns.count, startedAt: start) {
            oursRuns.append(try checked(ours))
            peerRuns.append(try checked(peer))
        }
        var oursPeak: Double?
        var peerPeak: Double?
        for _ in 0..<3 {
            oursPeak = try peakMiB(ours.path, ours.arguments, environment: ours.environment).map {
                max($0, oursPeak ?? 0)
            }
            peerPeak = try peakMiB(peer.path, peer.arguments, environment: peer.environment).map {
                max($0, peerPeak ?? 0)
            }
        }
        return (oursRuns.timing, peerRuns.timing, oursPeak, peerPeak)
    }

    /// One run that must end with the command's expected status.
    static func checked(_ command: Command) throws -> Run {
        let run = try run(command.path, command.arguments, environment: command.environment)
        guard run.exitStatus == command.expect else {
            throw BenchmarkError(description: "\(command.path) exited with \(run.exitStatus), not \(command.expect)")
        }
        return run
    }
}

extension [Spawn.Run] {
    var timing: Timing { Timing(map(\.milliseconds)) }
}
