import AdamantCore
import Dispatch
import Synchronization

/// Holds a hedged request on its worker thread until the hedge instant, so that it goes out
/// then, from a thread already awake, instead of after the pool's timer has woken, the read
/// loop has run and a worker has been woken for it: that took 0.3 ms from the instant to curl
/// starting the transfer (issue 10), this takes 0.01 ms. The read loop opens it early when the
/// hedge is due sooner (the leader failed); it is cancelled when the read ends first, and then
/// nothing is sent.
final class StartGate: Sendable {
    enum Outcome: Sendable, Equatable {
        case opened
        case cancelled
    }

    private enum State {
        case closed
        case opened(at: AnyClock.Instant)
        case cancelled
    }

    /// When the holder opens it itself, unless it is opened or cancelled before.
    let opensAt: ContinuousClock.Instant
    /// How long before `opensAt` the holder stops sleeping and watches the clock instead: a
    /// timed wait ended 0.08 ms late here (median; more on a loaded machine), and the hedge is
    /// what a silent node costs.
    let spin: Duration
    private let clock: AnyClock
    private let state = Mutex(State.closed)
    /// Signalled once, when it is opened or cancelled by someone other than the holder.
    private let changed = DispatchSemaphore(value: 0)

    init(opensAt: ContinuousClock.Instant, spin: Duration = .microseconds(300), clock: AnyClock) {
        self.opensAt = opensAt
        self.spin = spin
        self.clock = clock
    }

    /// When it opened, on the pool's clock; nil while closed and once cancelled.
    var openedAt: AnyClock.Instant? {
        state.withLock { if case .opened(let at) = $0 { at } else { nil } }
    }

    /// Opens it now; no effect once it is open or cancelled.
    func open() {
        if settle(.opened) { changed.signal() }
    }

    /// Nothing is sent; no effect once it is open.
    func cancel() {
        if settle(.cancelled) { changed.signal() }
    }

    /// Blocks the calling thread (never a cooperative one) until it is opened, cancelled or
    /// `opensAt` comes; at `opensAt` it opens.
    func waitOnThread() -> Outcome {
        let sleepUntil = opensAt - spin
        let now = ContinuousClock.now
        if outcome == nil, now < sleepUntil {  // a signal after this check still ends the wait
            let nanoseconds = Int(((sleepUntil - now) / .nanoseconds(1)).rounded(.down))
            _ = changed.wait(timeout: .now() + .nanoseconds(nanoseconds))
        }
        while outcome == nil, ContinuousClock.now < opensAt {}
        _ = settle(.opened)
        return outcome ?? .opened
    }

    /// nil while closed.
    private var outcome: Outcome? {
        state.withLock { state in
            switch state {
            case .closed: nil
            case .opened: .opened
            case .cancelled: .cancelled
            }
        }
    }

    /// Whether this call moved it out of `closed`.
    private func settle(_ outcome: Outcome) -> Bool {
        state.withLock { state in
            guard case .closed = state else { return false }
            state = outcome == .opened ? .opened(at: clock.now) : .cancelled
            return true
        }
    }
}

/// A transport that can take a hedged request ahead of its instant and hold it at a
/// `StartGate` on a thread of its own (`CurlTransport`).
protocol HoldingHTTPTransport: HTTPTransport {
    /// `request`, sent once `gate` opens, its timeout counted from then and cut to `cutOff`.
    /// `.cancelled` with nothing sent when the gate or the calling task is cancelled first.
    func send(_ request: HTTPRequest, heldBy gate: StartGate, cutOff: ContinuousClock.Instant) async throws(TransportError) -> HTTPAnswer
}
