import Foundation
import Testing

@testable import AdamantNodes

/// TLS is always verified: a node presenting a certificate no authority signed is refused
/// before any request is sent, whatever it would have answered.
@Suite(.timeLimit(.minutes(1)))
final class CurlTLSTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-tls-\(UUID().uuidString)")
    let server = Process()

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        // Process.terminate() may be blocked by an inherited signal mask; SIGKILL never is.
        if server.isRunning { kill(server.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A self-signed certificate for 127.0.0.1, and `openssl s_server` serving a page with it.
    func startSelfSignedServer() throws -> UInt16 {
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        let request = try Process.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments: [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        request.waitUntilExit()
        try #require(request.terminationStatus == 0)

        let output = Pipe()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"]
        server.standardOutput = output
        server.standardInput = Pipe()
        try server.run()
        // It prints "ACCEPT 127.0.0.1:<port>" once listening; wait for that line, with a deadline.
        let accepted = try #require(
            outputLine(startingWith: "ACCEPT ", from: output.fileHandleForReading.fileDescriptor, within: 10))
        return try #require(accepted.split(separator: ":").last.flatMap { UInt16($0) }, "\(accepted)")
    }

    private func outputLine(startingWith prefix: String, from descriptor: Int32, within seconds: Double) -> String? {
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
        let port = try startSelfSignedServer()
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
