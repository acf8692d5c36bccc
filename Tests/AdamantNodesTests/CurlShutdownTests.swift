import AdamantCore
@testable import AdamantNodes
import Foundation
import Testing

/// `CurlTransport.shutdown()` is process-wide, so it runs in a child process (an exit test).
/// `scripts/exit-loop` checks the same at scale: 2,000 runs of `adm-push nodes`, none crashing.
@Suite(.timeLimit(.minutes(1)))
struct CurlShutdownTests {
    /// A transfer in flight ends, every worker thread is joined before `shutdown` returns, and
    /// every later request fails at once, on any transport.
    @Test func shutdownStopsAndJoinsEveryWorker() async {
        await #expect(processExitsWith: .exitCode(0)) {
            let server = LoopbackServer(.silent)
            let transport = CurlTransport()
            let request = HTTPRequest(url: "http://127.0.0.1:\(server.port)/", timeout: .seconds(30), connectTimeout: .seconds(5))
            let inFlight = Task { try await transport.send(request) }
            let started = ContinuousClock.now
            while CurlThreads.shared.unjoinedThreads == 0 || started.duration(to: .now) < .milliseconds(100) {
                guard started.duration(to: .now) < .seconds(10) else { exit(10) }
                try? await Task.sleep(for: .milliseconds(5))
            }

            CurlTransport.shutdown()
            guard CurlThreads.shared.unjoinedThreads == 0 else { exit(11) }
            guard started.duration(to: .now) < .seconds(10) else { exit(12) }
            do {
                _ = try await inFlight.value
                exit(13)
            } catch {
                guard error as? TransportError == .cancelled else { exit(14) }
            }
            do {
                _ = try await CurlTransport().send(request)
                exit(15)
            } catch {
                guard case .failed(let reason)? = error as? TransportError, reason.contains("shut down") else { exit(16) }
            }
            guard CurlThreads.shared.unjoinedThreads == 0 else { exit(17) }
            exit(0)
        }
    }

    /// Transfers held by a silent peer end as soon as shutdown begins, not at curl's next
    /// progress tick (about a second apart while nothing arrives): exit does not wait on them.
    @Test func shutdownDoesNotWaitForStalledTransfers() async {
        await #expect(processExitsWith: .exitCode(0)) {
            let server = LoopbackServer(.silent)
            let transport = CurlTransport()
            let request = HTTPRequest(url: "http://127.0.0.1:\(server.port)/", timeout: .seconds(30), connectTimeout: .seconds(5))
            let inFlight = (0..<3).map { _ in Task { try await transport.send(request) } }
            let started = ContinuousClock.now
            while CurlThreads.shared.unjoinedThreads < 3 || started.duration(to: .now) < .milliseconds(300) {
                guard started.duration(to: .now) < .seconds(10) else { exit(10) }
                try? await Task.sleep(for: .milliseconds(5))
            }
            let stopping = ContinuousClock.now
            CurlTransport.shutdown()
            // Three transfers at random phases of a 1 s tick: waiting for the ticks takes ~750 ms.
            guard stopping.duration(to: .now) < .milliseconds(250) else { exit(11) }
            for task in inFlight { _ = try? await task.value }
            exit(0)
        }
    }
}
