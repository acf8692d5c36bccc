import AdamantCore
import AdamantDevnet
import AdamantNodes
import Testing

@testable import AdamantFetch

/// The watch takes its time from its pool's clock: here a manual one that moves only when told.
@Suite("Watch, on a manual clock", .timeLimit(.minutes(2)))
struct WatchClockTests {
    /// After its first read the watch polls again when its clock reaches the interval (a minute
    /// here, which real time never reaches in this test), and once stopped leaves nothing of
    /// its own waiting on the clock: its timers, and the pool's health checks, end with it.
    @Test func pollsWhenItsClockSaysAndLeavesNoTimerBehind() async throws {
        let clock = ManualClock()
        let network = try await FetchNetwork(clock: AnyClock(clock))
        let watch = try WatchRun(network)
        try await watch.start(interval: .seconds(60))
        let due = clock.now.advanced(by: .seconds(60))
        try await watch.until("the next poll waits for the clock") { clock.pendingDeadlines.contains(due) }

        let sent = try await network.send("after the first read", from: network.friend, to: network.me).computedID()
        network.devnet.mine()
        clock.advance(to: due)
        try await watch.until("the poll the clock let through shows it") { watch.results.map(\.id) == [sent] }

        await watch.stop()
        #expect(clock.sleeperCount == 0, "still asleep on the clock: \(clock.pendingDeadlines)")
    }
}
