import Foundation
import Synchronization
import Testing

@testable import AdamantNodes

/// TLS is always verified: a node presenting a certificate no authority signed is refused
/// before any request is sent, whatever it would have answered.
@Suite(.timeLimit(.minutes(1)))
final class CurlTLSTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-tls-\(UUID().uuidString)")
    let server = Mutex<pid_t?>(nil)

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        if let pid = server.withLock({ $0 }) {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A self-signed certificate for 127.0.0.1, and `openssl s_server` serving a page with it.
    /// `openssl` is spawned and waited for here, on threads of its own, rather than through
    /// `Foundation.Process`, whose wait holds a task's thread for as long as any child another
    /// test spawns meanwhile lives.
    func startSelfSignedServer() async throws -> UInt16 {
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        let request = try Self.spawnOpenSSL(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ], output: nil)
        let status = await Self.onOwnThread {
            var status: Int32 = 0
            while waitpid(request, &status, 0) < 0 && errno == EINTR {}
            return status
        }
        try #require(status == 0, "openssl req exited with \(status)")

        var pipe: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&pipe) == 0)
        for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(pipe[0]) }
        let pid: pid_t
        do {
            defer { close(pipe[1]) }
            pid = try Self.spawnOpenSSL(
                ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"], output: pipe[1])
        }
        server.withLock { $0 = pid }
        // It prints "ACCEPT 127.0.0.1:<port>" once listening; wait for that line, with a deadline.
        let output = pipe[0]
        let accepted = try #require(
            await Self.onOwnThread { Self.outputLine(startingWith: "ACCEPT ", from: output, within: 10) })
        return try #require(accepted.split(separator: ":").last.flatMap { UInt16($0) }, "\(accepted)")
    }

    /// `openssl` with `arguments`, standard input and error on /dev/null, output to `output`.
    private static func spawnOpenSSL(_ arguments: [String], output: Int32?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] where fd != 1 || output == nil {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        if let output { posix_spawn_file_actions_adddup2(&actions, output, 1) }
        let path = "/usr/bin/openssl"
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, environ)
        try #require(status == 0, "posix_spawn openssl: \(String(cString: strerror(status)))")
        return pid
    }

    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    private static func outputLine(startingWith prefix: String, from descriptor: Int32, within seconds: Double)
        -> String?
    {
        let deadline = Date().addingTimeInterval(seconds)
        var bytes: [UInt8] = []
        while true {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .dropLast()
            if let found = lines.first(where: { $0.hasPrefix(prefix) }) { return String(found) }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline.timeIntervalSinceNow
            guard left > 0, poll(&ready, 1, Int32(left * 1000)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 256)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            bytes += chunk[..<count]
        }
    }

    @Test func aSelfSignedNodeIsRefused() async throws {
        let port = try await startSelfSignedServer()
        let transport = CurlTransport()
        let request = HTTPRequest(
            url: "https://127.0.0.1:\(port)/api/node/status", timeout: .seconds(5), connectTimeout: .seconds(2))
        do {
            let answer = try await transport.send(request)
            Issue.record("got HTTP \(answer.status) from a node whose certificate nobody signed")
        } catch {
            #expect(error.description.contains("certificate"), "\(error)")
        }
    }
}
