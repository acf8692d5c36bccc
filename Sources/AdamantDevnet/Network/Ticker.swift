import Foundation

/// Runs an action every interval on a thread of its own, so block production never waits for
/// the cooperative pool (which blocking test code may be holding).
final class Ticker: Sendable {
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(every interval: Duration, _ action: @escaping @Sendable () -> Void) {
        let (wakeUp, finished) = (self.wakeUp, self.finished)
        let nanoseconds =
            Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        let thread = Thread {
            // A signal, rather than a timeout, means stop.
            while wakeUp.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut { action() }
            finished.signal()
        }
        thread.start()
    }

    /// Returns once the action has run for the last time.
    func stop() {
        wakeUp.signal()
        finished.wait()
    }
}
