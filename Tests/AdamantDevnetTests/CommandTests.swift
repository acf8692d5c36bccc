import AdamantCLI
import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// The `adm-devnet` binary, spawned as a child process.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct CommandTests {
    @Test func helpAndUsageErrors() throws {
        let help = try Child(["start", "--help"])
        #expect(help.waitForExit() == 0 && help.readAll().contains("USAGE: adm-devnet start"))
        for arguments in [
            ["start", "--nodes", "zero"], ["start", "--bogus"], ["start", "--fault", "5:drop"],
            ["start", "--account", "not a passphrase=1"], ["start", "--fault", "0:status:404"], [],
            ["start", "--service", "all"], ["start", "--ns-mode", "csharp"], ["start", "--ns-poll", "0"],
        ] {
            let child = try Child(arguments)
            #expect(child.waitForExit() == 64)
            let stderr = child.readAllErrors()
            #expect(stderr.hasPrefix("Error: ") && stderr.contains("See 'adm-devnet"), "\(arguments): \(stderr)")
        }
    }

    @Test func startsReportsAndStopsWhenStdinCloses() throws {
        let alice = Fixtures.alice
        let child = try Child([
            "start", "--quiet", "--nodes", "2", "--block-time", "0.05", "--fund", "2",
            "--account", "\(alice.passphrase)=12.5", "--fault", "1:refuse",
        ])
        let ready = try JSONValue.parse(Array(try #require(child.readLine()).utf8))
        let nodes = ready["nodes"]!.arrayValue.compactMap(\.string)
        #expect(nodes.count == 2 && ready["nethash"]?.string == DevnetNethash.value)
        let accounts = ready["accounts"]!.arrayValue
        #expect(accounts.map { $0["balance"]?.string } == ["12.5", "100", "100", "0"])
        #expect(accounts[0]["address"]?.string == alice.address.description)
        #expect(
            ready["ans"]?["passphrase"]?.string.map { try? DevnetAccount(passphrase: $0) }??.address.description
                == ready["ans"]?["address"]?.string)

        #expect(
            try HTTPClient.send("GET", nodes[0] + "/api/accounts/getBalance?address=\(alice.address)").json["balance"]?
                .string == "1250000000")
        #expect(throws: HTTPClientError.refused) { try HTTPClient.send("GET", nodes[1] + "/api/node/status") }
        let control = try #require(ready["control"]?.string)
        let height = try HTTPClient.send("POST", control + "/mine").json["height"]?.int64 ?? 0
        #expect(height >= 2)
        #expect(
            try eventually {
                (try HTTPClient.send("GET", nodes[0] + "/api/blocks/getHeight").json["height"]?.int64 ?? 0) > height
            })

        child.closeStdin()
        #expect(child.waitForExit() == 0)
        #expect(throws: HTTPClientError.refused) { try HTTPClient.send("GET", nodes[0] + "/api/node/status") }
    }

    /// README's first command: every step happens over HTTP and both services see what they should.
    @Test func theDemoRunsEveryStep() throws {
        let demo = try Child(["demo"])
        #expect(demo.waitForExit(timeout: 90) == 0, "\(demo.readAllErrors())")
        let output = demo.readAll()
        #expect(output.contains("3 of 3 nodes usable"))
        #expect(output.contains("The ANS registry now holds U"))
        #expect(output.contains("decrypts it: \"Lunch at noon?\""))
        #expect(output.contains("The ANS polls again and deletes the registration: alice holds 0 device(s),"))
        #expect(output.contains("He logs back in: the stale remove is cancelled, never sent"))
        #expect(output.contains("After more polls the ANS still holds 1 device(s) for bob."))
        #expect(output.contains("The poll applies them newest first, the remove last: alice holds 0 device(s)."))
        #expect(output.contains("never a remove: adamant-ns holds his new token."))
        // alice's web app rotates again, at 0.002 ADM, should the timer forge between its two signals.
        #expect(output.contains(/Balances: alice 97\.99[024] ADM, bob 101\.495 ADM/), "\(output)")
        let live = output.firstMatch(of: /shows it (\d+) ms after bob sent it, before any block/).flatMap { Int($0.1) }
        let polled = output.firstMatch(of: /every 10 s\) (\d+) ms after, once a block held it/).flatMap { Int($0.1) }
        #expect(live != nil && polled != nil && live! < 1_000 && live! < polled!, "\(output)")
    }

    @Test func startsWithAdamantNSAlone() throws {
        let child = try Child(["start", "--quiet", "--nodes", "1", "--service", "ns", "--ns-mode", "ordered"])
        let ready = try JSONValue.parse(Array(try #require(child.readLine()).utf8))
        #expect(ready["ans"] == nil)
        let ns = try #require(ready["ns"])
        let account = try #require(ns["passphrase"]?.string.flatMap { try? DevnetAccount(passphrase: $0) })
        #expect(ns["address"]?.string == account.address.description)
        #expect(ns["publicKey"]?.string == account.publicKey.hex)
        let control = try #require(ready["control"]?.string)
        #expect(try HTTPClient.send("GET", control + "/ns/mode").json["mode"]?.string == "ordered")
        child.closeStdin()
        #expect(child.waitForExit() == 0)
    }

    @Test func stopsOnSIGTERM() throws {
        let child = try Child(["start", "--quiet", "--nodes", "1"])
        _ = try #require(child.readLine())
        child.terminate()
        #expect(child.waitForExit() == 0)
    }
}

/// A spawned `adm-devnet`, killed in teardown if still running. Started with `posix_spawn`:
/// `Foundation.Process.run` crashed in a memcpy while this suite's process had many threads and
/// descriptors open (swift-corelibs-foundation#5472), twice in full runs.
final class Child {
    let processIdentifier: pid_t
    private let output: Int32, errors: Int32
    private var input: Int32
    private var buffered: [UInt8] = []
    private var exitStatus: Int32?

    init(_ arguments: [String]) throws {
        struct SpawnFailed: Error { let reason: String }
        func makePipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw SpawnFailed(reason: String(cString: strerror(errno))) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // no other child keeps it open
            return (ends[0], ends[1])
        }
        let (stdin, stdout, stderr) = (try makePipe(), try makePipe(), try makePipe())
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (end, target) in [(stdin.read, 0), (stdout.write, 1), (stderr.write, 2)] {
            posix_spawn_file_actions_adddup2(&actions, end, Int32(target))
        }
        let path = Bundle.main.bundleURL.appendingPathComponent("adm-devnet").path
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status =
            ChildProcess.withShellAttributes { attributes in
                posix_spawn(&pid, path, &actions, &attributes, argv, environ)
            } ?? EINVAL
        for end in [stdin.read, stdout.write, stderr.write] { close(end) }
        guard status == 0 else {
            for end in [stdin.write, stdout.read, stderr.read] { close(end) }
            throw SpawnFailed(reason: "posix_spawn \(path): \(String(cString: strerror(status)))")
        }
        (processIdentifier, input, output, errors) = (pid, stdin.write, stdout.read, stderr.read)
    }

    deinit {
        if exitStatus == nil { kill(processIdentifier, SIGKILL) }
        closeStdin()
        _ = readAll()
        _ = readAllErrors()
        if exitStatus == nil {
            var raw: Int32 = 0
            while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
        }
        close(output)
        close(errors)
    }

    /// `readLine` for async tests, waiting with `Task.sleep` rather than in `poll`.
    func nextLine(timeout: Double = 10) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = readLine(timeout: 0.001) { return line }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return readLine(timeout: 0.001)
    }

    /// The first line of stdout, within a deadline.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while !buffered.contains(UInt8(ascii: "\n")) {
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let left = deadline.timeIntervalSinceNow
            guard left > 0, poll(&poller, 1, Int32(left * 1000)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(output, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffered += chunk[..<count]
        }
        let line = buffered.prefix { $0 != UInt8(ascii: "\n") }
        buffered.removeFirst(line.count + 1)
        return String(decoding: line, as: UTF8.self)
    }

    func readAll() -> String {
        let text = String(decoding: buffered + Self.readToEnd(output), as: UTF8.self)
        buffered = []
        return text
    }

    func readAllErrors() -> String { String(decoding: Self.readToEnd(errors), as: UTF8.self) }

    func closeStdin() {
        if input >= 0 { close(input) }
        input = -1
    }

    func terminate() { kill(processIdentifier, SIGTERM) }

    /// The exit status (128 + the signal for one that ended it), or nil if it is still running
    /// after the deadline.
    func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while exitStatus == nil {
            var raw: Int32 = 0
            let reaped = waitpid(processIdentifier, &raw, WNOHANG)
            if reaped == processIdentifier {
                exitStatus = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + raw & 0x7f
            } else if reaped < 0 && errno != EINTR {
                return nil
            } else if Date() >= deadline {
                return nil
            } else {
                usleep(10_000)
            }
        }
        return exitStatus
    }

    /// What is left on `descriptor` until end of file.
    private static func readToEnd(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }
}
