import AdamantCLI
import AdamantCore
import AdamantDevnet
import Foundation
import Testing

@testable import adm_fetch

#if canImport(Glibc)
    import Glibc
#endif

/// A whole `adm-fetch watch`, run in this process on a manual clock: the command's clocks
/// reach its node pool, its watch and its deliveries, so its polls come when the test moves
/// time, and not before.
@Suite("a watch on a manual clock", .serialized, .timeLimit(.minutes(2)))
struct WatchManualClockTests {
    @Test func itPollsWhenTheClockIsMovedAndShowsWhatCame() async throws {
        let network = try await FetchDevnet()
        let clock = ManualClock()
        let folder = network.outbox.home + "/manual-clock"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (lines, log) = (folder + "/stdout", folder + "/stderr")
        let out = open(lines, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let err = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { _ = (close(out), close(err)) }
        let context = Context(
            environment: [
                "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","),
                "ADM_PASSPHRASE": network.outbox.passphrase, "HOME": folder, "PATH": "/usr/bin:/bin",
            ],
            output: Output(standardOutput: out, standardError: err), terminal: Terminal(input: -1),
            clocks: Clocks(wall: SystemWallClock(), monotonic: AnyClock(clock)))
        let home = network.outbox.home + "/home"
        let watch = Task {
            await AdmFetch.tool.run(
                ["watch", "--no-live", "--interval", "3600", "--json", "--home", home], context)
        }
        defer {
            // The watch's stop took SIGINT, SIGTERM and SIGHUP from this process.
            for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
        }
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        func until(_ what: String, _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition() {
                guard ContinuousClock.now < deadline else { throw WatchTestFailure("\(what) never came: \(read(log))") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        // Caught up, and asleep until the poll an hour on: by the manual clock only.
        try await until("the poll's sleep") {
            read(log).contains("Watching ") && clock.pendingDeadlines.contains(clock.now + .seconds(3600))
        }
        let sent = try await network.send("by the manual clock", from: network.friend, to: network.me)
        #expect(read(lines).isEmpty, "nothing polled while the clock stood")
        clock.advance(by: .seconds(3600))
        try await until("the message") { read(lines).contains(try! sent.computedID().description) }
        watch.cancel()
        #expect(await watch.value == .success)
        #expect(read(lines).split(separator: "\n").count == 1, "\(read(lines))")
    }
}
