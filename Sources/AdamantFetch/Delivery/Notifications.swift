public import AdamantNodes
import Synchronization

/// The notifications of a group of watched accounts as they come, decided by a policy: what
/// `adm-fetch watch --json` prints, for an app or a bot to read with `for try await`.
///
/// A notification counts as handed over once the loop asks for the next one, so across
/// restarts on the same homes each comes once: only one the loop was given and had not
/// finished when the process ended comes again. Leaving the loop stops the watch, and the
/// loop's error is the watch's (`WatchGroup.Failure`: no usable node, a lease refused, …).
public struct Notifications: AsyncSequence, Sendable {
    /// A notification, as the policy lets it read.
    public typealias Element = WatchNotification
    /// Why the watch stopped.
    public typealias Failure = WatchGroup.Failure

    let group: WatchGroup
    let start: WatchStart
    let policy: NotificationPolicy
    let events: any LogSink

    /// The notifications `group` finds from `start`, as `policy` lets them read; `events`
    /// hears what the watch logs.
    public init(
        _ group: WatchGroup, from start: WatchStart = .resume, policy: NotificationPolicy = NotificationPolicy(),
        events: any LogSink = SilentLog()
    ) {
        (self.group, self.start, self.policy, self.events) = (group, start, policy, events)
    }

    /// An iterator with a watch of its own, started at its first `next()`.
    public func makeAsyncIterator() -> Iterator { Iterator(self) }

    /// Starts the watch at the first `next()` and stops it when it is dropped.
    public final class Iterator: AsyncIteratorProtocol {
        private let source: Notifications
        private let handoff = Handoff()
        /// The watch, which outlives each `next()`: an iterator has no task of its own.
        private var watch: Task<Void, Never>?

        init(_ source: Notifications) { self.source = source }

        deinit {
            handoff.close()
            watch?.cancel()
        }

        /// The next notification; nil once the watch was stopped from outside (its task
        /// cancelled).
        public func next() async throws(WatchGroup.Failure) -> WatchNotification? {
            if watch == nil {
                let (source, handoff) = (self.source, self.handoff)
                watch = Task { await Iterator.run(source, handoff) }
            }
            return try await handoff.take()
        }

        private static func run(_ source: Notifications, _ handoff: Handoff) async {
            let pipeline = NotificationPipeline(
                source.group, delivery: .init(policy: source.policy, desktop: false, stays: true),
                events: source.events)
            do throws(WatchGroup.Failure) {
                try await pipeline.run(
                    from: source.start,
                    outputs: .init(show: { notification throws(HandOverFailure) in
                        try await handoff.offer(notification)
                    }))
                handoff.finish(nil)
            } catch {
                handoff.finish(error)
            }
        }
    }
}

/// One notification at a time from the watch to the loop: `offer` returns once the loop has
/// taken the notification and asked for the next.
final class Handoff: Sendable {
    private struct State {
        /// A notification the watch offers, waiting for the loop.
        var offered: (WatchNotification, CheckedContinuation<Void, any Error>)?
        /// The loop waiting for one.
        var taker: CheckedContinuation<WatchNotification?, any Error>?
        /// What the loop was given last: its offer returns when the loop comes back.
        var given: CheckedContinuation<Void, any Error>?
        /// The watch ended, with its failure if it failed.
        var ended: WatchGroup.Failure??
        /// The loop is gone.
        var closed = false
        /// The loop's task was cancelled: its wait ends, with no notification.
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Hands `notification` to the loop; throws when the loop is gone before it asked again.
    func offer(_ notification: WatchNotification) async throws(HandOverFailure) {
        do {
            try await withCheckedThrowingContinuation { (offer: CheckedContinuation<Void, any Error>) in
                let taker: CheckedContinuation<WatchNotification?, any Error>? = state.withLock { state in
                    if state.closed {
                        offer.resume(throwing: HandOverFailure.readerStopped)
                        return nil
                    }
                    guard let taker = state.taker else {
                        state.offered = (notification, offer)
                        return nil
                    }
                    state.taker = nil
                    state.given = offer
                    return taker
                }
                taker?.resume(returning: notification)
            }
        } catch let failure as HandOverFailure {
            throw failure
        } catch {
            // Only `HandOverFailure` is ever resumed with: the continuation's type cannot say so.
            throw .readerStopped
        }
    }

    /// The next notification, once the last one given is counted as handed over.
    func take() async throws(WatchGroup.Failure) -> WatchNotification? {
        do {
            return try await withTaskCancellationHandler {
                try await wait()
            } onCancel: {
                let taker = state.withLock { state in
                    state.cancelled = true
                    defer { state.taker = nil }
                    return state.taker
                }
                taker?.resume(returning: nil)
            }
        } catch let failure as WatchGroup.Failure {
            throw failure
        } catch {
            return nil
        }
    }

    private func wait() async throws -> WatchNotification? {
        try await withCheckedThrowingContinuation { taker in
            let (done, ready): (CheckedContinuation<Void, any Error>?, WatchNotification?) = state.withLock {
                state in
                let done = state.given
                state.given = nil
                if let (notification, offer) = state.offered {
                    state.offered = nil
                    state.given = offer
                    return (done, notification)
                }
                if let ended = state.ended {
                    if let failure = ended { taker.resume(throwing: failure) } else { taker.resume(returning: nil) }
                } else if state.cancelled {
                    taker.resume(returning: nil)
                } else {
                    state.taker = taker
                }
                return (done, nil)
            }
            done?.resume()
            if let ready { taker.resume(returning: ready) }
        }
    }

    /// The watch ended: the loop gets `failure`, or the end.
    func finish(_ failure: WatchGroup.Failure?) {
        let taker = state.withLock { state in
            state.ended = .some(failure)
            defer { state.taker = nil }
            return state.taker
        }
        guard let taker else { return }
        if let failure { taker.resume(throwing: failure) } else { taker.resume(returning: nil) }
    }

    /// The loop is gone: what waits for it is not handed over.
    func close() {
        let (offered, given) = state.withLock { state in
            state.closed = true
            defer { (state.offered, state.given) = (nil, nil) }
            return (state.offered?.1, state.given)
        }
        for waiting in [offered, given].compactMap({ $0 }) {
            waiting.resume(throwing: HandOverFailure.readerStopped)
        }
    }
}
