import AdamantDevnet
import Foundation
import Testing

/// What an idle `adm-fetch watch` does while nothing happens: live, its sockets' polls are
/// held by the nodes for up to a ping interval (25 s), and it waits on them without waking.
@Suite("adm-fetch watch, idle", .timeLimit(.minutes(2)))
struct WatchIdleTests {
    /// libcurl's own transfer loop (`curl_easy_perform`) looks at a held request once a second:
    /// two polls a second on each socket of an idle watch, for as long as it runs.
    @Test(.enabled(if: TraceTools.runs(needing: TraceTools.strace)))
    func heldSocketPollsWakeNothingWhileTheyWait() async throws {
        try TraceTools.require(TraceTools.strace)
        let network = try await FetchDevnet()
        let folder = network.outbox.home + "/runs"
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase,
            "PATH": "/usr/bin:/bin",
        ]
        let trace = folder + "/idle.trace"
        // A log line waits for room beside the stop notice (fd 1 or 2 polled for POLLOUT): a
        // write, not a wake-up of the transfers, and not counted.
        let wakes: @Sendable () -> [Substring] = {
            ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").filter {
                !$0.contains("{fd=1, events=POLLOUT}") && !$0.contains("{fd=2, events=POLLOUT}")
            }
        }
        let polls: @Sendable () -> Int = { wakes().count }
        let (result, _) = try await ProxyTraceTests.tracedWatch(
            ["--home", network.outbox.home + "/home"], environment: environment, folder: folder, name: "idle",
            calls: "trace=poll,ppoll", options: []
        ) { watch in
            try await watch.until("both sockets are live") {
                watch.stderr.components(separatedBy: "watch: live on").count == 3
            }
            // The requests of the start (the listings and pools the sockets coming up asked for)
            // end, and libcurl's one look at each held poll when its 10 s connect timer expires
            // passes; then nothing is due until the ping, 25 s after the sockets opened. Quiet
            // for a second once 11 s have gone by, or 16 s gone by.
            let live = ContinuousClock.now
            var last = polls()
            while ContinuousClock.now < live + .seconds(16) {
                try await Task.sleep(for: .seconds(1))
                let now = polls()
                if now == last, ContinuousClock.now >= live + .seconds(11) { break }
                last = now
            }
            let before = polls()
            try await Task.sleep(for: .seconds(4))  // the span observed, not a wait for a condition
            let lines = wakes()
            let idle = lines.count - before
            #expect(
                idle <= 4,
                "\(idle) polls in 4 s of an idle watch: \(lines.suffix(max(idle, 0)).joined(separator: " | "))")
        }
        #expect(result.status == 0)
    }
}
