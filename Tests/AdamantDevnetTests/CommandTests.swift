@testable import AdamantDevnet
import AdamantCore
import Foundation
import Testing

/// The `adm-devnet` binary, spawned as a child process.
@Suite(.timeLimit(.minutes(1)))
struct CommandTests {
    @Test func helpAndUsageErrors() throws {
        let help = try Child(["start", "--help"])
        #expect(help.waitForExit() == 0 && help.readAll().contains("USAGE: adm-devnet start"))
        for arguments in [["start", "--nodes", "zero"], ["start", "--bogus"], ["start", "--fault", "5:drop"],
                          ["start", "--account", "not a passphrase=1"], ["start", "--fault", "0:status:404"], []] {
            let child = try Child(arguments)
            #expect(child.waitForExit() == 64)
            let stderr = child.readAllErrors()
            #expect(stderr.hasPrefix("Error: ") && stderr.contains("See 'adm-devnet"), "\(arguments): \(stderr)")
        }
    }

    @Test func startsReportsAndStopsWhenStdinCloses() throws {
        let alice = Fixtures.alice
        let child = try Child(["start", "--quiet", "--nodes", "2", "--block-time", "0.05", "--fund", "2",
                               "--account", "\(alice.passphrase)=12.5", "--fault", "1:refuse"])
        let ready = try JSON.parse(Array(try #require(child.readLine()).utf8))
        let nodes = ready["nodes"]!.arrayValue.compactMap(\.stringValue)
        #expect(nodes.count == 2 && ready["nethash"]?.stringValue == DevnetNethash.value)
        let accounts = ready["accounts"]!.arrayValue
        #expect(accounts.map { $0["balance"]?.stringValue } == ["12.5", "100", "100", "0"])
        #expect(accounts[0]["address"]?.stringValue == alice.address.description)
        #expect(ready["ans"]?["passphrase"]?.stringValue.map { try? DevnetAccount(passphrase: $0) }??.address.description
            == ready["ans"]?["address"]?.stringValue)

        #expect(try HTTPClient.send("GET", nodes[0] + "/api/accounts/getBalance?address=\(alice.address)").json["balance"]?.stringValue == "1250000000")
        #expect(throws: HTTPClientError.refused) { try HTTPClient.send("GET", nodes[1] + "/api/node/status") }
        let control = try #require(ready["control"]?.stringValue)
        let height = try HTTPClient.send("POST", control + "/mine").json["height"]?.integerValue ?? 0
        #expect(height >= 2)
        #expect(try eventually { (try HTTPClient.send("GET", nodes[0] + "/api/blocks/getHeight").json["height"]?.integerValue ?? 0) > height })

        child.closeStdin()
        #expect(child.waitForExit() == 0)
        #expect(throws: HTTPClientError.refused) { try HTTPClient.send("GET", nodes[0] + "/api/node/status") }
    }

    /// README's first command: every step happens over HTTP and the ANS sees what it should.
    @Test func theDemoRunsEveryStep() throws {
        let demo = try Child(["demo"])
        #expect(demo.waitForExit(timeout: 40) == 0, "\(demo.readAllErrors())")
        let output = demo.readAll()
        #expect(output.contains("3 of 3 nodes usable"))
        #expect(output.contains("The ANS registry now holds U"))
        #expect(output.contains("decrypts it: \"Lunch at noon?\""))
        #expect(output.contains("The ANS polls again and deletes the registration: alice holds 0 device(s),"))
        #expect(output.contains("He logs back in: the stale remove is cancelled, never sent"))
        #expect(output.contains("After more polls the ANS still holds 1 device(s) for bob."))
        #expect(output.contains("Balances: alice 97.997 ADM, bob 101.498 ADM"))
    }

    @Test func stopsOnSIGTERM() throws {
        let child = try Child(["start", "--quiet", "--nodes", "1"])
        _ = try #require(child.readLine())
        child.process.terminate()
        #expect(child.waitForExit() == 0)
    }
}

/// A spawned `adm-devnet`, killed in teardown if still running.
final class Child {
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private var buffered: [UInt8] = []

    init(_ arguments: [String]) throws {
        process.executableURL = Bundle.main.bundleURL.appendingPathComponent("adm-devnet")
        process.arguments = arguments
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? input.fileHandleForWriting.close()
        _ = readAll()
        process.waitUntilExit()
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
        let fd = output.fileHandleForReading.fileDescriptor
        while !buffered.contains(UInt8(ascii: "\n")) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline.timeIntervalSinceNow
            guard left > 0, poll(&poller, 1, Int32(left * 1000)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffered += chunk[..<count]
        }
        let line = buffered.prefix { $0 != UInt8(ascii: "\n") }
        buffered.removeFirst(line.count + 1)
        return String(decoding: line, as: UTF8.self)
    }

    func readAll() -> String { String(decoding: buffered + output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    func readAllErrors() -> String { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

    func closeStdin() { try? input.fileHandleForWriting.close() }

    /// The exit status, or nil if it is still running after the deadline.
    func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}
