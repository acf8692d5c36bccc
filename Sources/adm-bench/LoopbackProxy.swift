import AdamantCLI
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's microsocks, a SOCKS5 server, on a loopback port of the kernel's choice, for as
/// long as this is kept: what a proxied command's connections go through in the benchmark
/// and the tests.
final class LoopbackProxy: Sendable {
    static let microsocks = "/usr/bin/microsocks"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: microsocks) }

    let processIdentifier: pid_t
    let port: Int

    /// Started and listening on `port`, or on one of the kernel's choice for 0 (a port given
    /// is one a proxy stopped before held: the same proxy back), or why not within 10 s.
    init(port wanted: Int = 0) throws {
        let arguments: [String] = [Self.microsocks, "-i", "127.0.0.1", "-p", String(wanted)]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned =
            ChildProcess.withShellAttributes { attributes in
                Spawn.quietly { posix_spawn(&pid, Self.microsocks, &$0, &attributes, argv, envp) }
            } ?? EINVAL
        guard spawned == 0 else {
            throw BenchmarkError(description: "cannot start microsocks: \(String(cString: strerror(spawned)))")
        }
        let deadline = Date().addingTimeInterval(10)
        var found = Self.listeningPort(of: pid)
        while found == nil, Date() < deadline {
            usleep(5_000)
            found = Self.listeningPort(of: pid)
        }
        guard let found else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            throw BenchmarkError(description: "microsocks did not listen within 10 s")
        }
        processIdentifier = pid
        port = found
    }

    deinit {
        kill(processIdentifier, SIGKILL)
        waitpid(processIdentifier, nil, 0)
    }

    /// `socks5h://127.0.0.1:port`.
    var url: String { "socks5h://127.0.0.1:\(port)" }

    /// The port `pid` listens on: the inode, in /proc/net/tcp (state 0A, read whole), of a
    /// socket it holds and this process does not (what it inherited is this one's).
    static func listeningPort(of pid: pid_t) -> Int? {
        func sockets(_ folder: String) -> Set<String> {
            Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap {
                    try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
                })
        }
        let own = sockets("/proc/\(pid)/fd").subtracting(sockets("/proc/self/fd"))
        guard let table = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() else { return nil }
        for line in String(decoding: table, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "0A", own.contains("socket:[\(fields[9])]"),
                let hex = fields[1].split(separator: ":").last, let port = Int(hex, radix: 16)
            else { continue }
            return port
        }
        return nil
    }
}
