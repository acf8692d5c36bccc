import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Wall time

/// The calendar time, which transactions are stamped from. One seam for every component that
/// reads it, so a test can put the device minutes off or move time by hand.
public protocol WallClock: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    func unixMillis() -> Int64
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    /// The system clock.
    public init() {}

    /// `CLOCK_REALTIME`, to the millisecond.
    public func unixMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

/// A wall clock that moves only when told to.
public final class ManualWallClock: WallClock {
    private let millis: Mutex<Int64>

    /// A clock stopped at `unixMillis`.
    public init(unixMillis: Int64) { millis = Mutex(unixMillis) }

    /// The time it was set to, moved by every `advance(byMillis:)` since.
    public func unixMillis() -> Int64 { millis.withLock { $0 } }

    /// Moves the clock by `delta` milliseconds, backwards too.
    public func advance(byMillis delta: Int64) { millis.withLock { $0 &+= delta } }
}

// MARK: Both

/// The two clocks a run reads: the wall clock for what the user sees and what is kept, the
/// monotonic one for waits, deadlines and retries. Made once, by the process or a test, and
/// handed down (a command's `Context`, then its node pool, which what reads the nodes takes
/// them from), so every part of a run reads the same time and a test moves it all at once.
public struct Clocks: Sendable {
    /// Calendar time.
    public var wall: any WallClock
    /// Monotonic time.
    public var monotonic: AnyClock

    /// The clocks given.
    public init(wall: any WallClock, monotonic: AnyClock) {
        (self.wall, self.monotonic) = (wall, monotonic)
    }

    /// The system's: its real-time clock and its monotonic one.
    public static var system: Clocks { Clocks(wall: SystemWallClock(), monotonic: .continuous) }
}

// MARK: Monotonic time

/// An instant of `AnyClock` or `ManualClock`: the time since the clock was made.
public struct OffsetInstant: InstantProtocol {
    /// The time since the clock's start.
    public var offset: Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Duration) { self.offset = offset }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> OffsetInstant { OffsetInstant(offset: offset + duration) }
    /// How long from this instant to `other`.
    public func duration(to other: OffsetInstant) -> Duration { other.offset - offset }
    /// Earlier first.
    public static func < (lhs: OffsetInstant, rhs: OffsetInstant) -> Bool { lhs.offset < rhs.offset }
    /// The instant `rhs` after `lhs`.
    public static func + (lhs: OffsetInstant, rhs: Duration) -> OffsetInstant { lhs.advanced(by: rhs) }
}

/// Any `Clock` measured in `Duration`, behind one concrete type, so a component can take a
/// test clock without becoming generic. Its instants count from the moment it was made.
public struct AnyClock: Clock {
    /// Offsets from the moment the clock was wrapped.
    public typealias Instant = OffsetInstant

    private let elapsed: @Sendable () -> Duration
    private let sleepFor: @Sendable (_ offset: Duration, _ tolerance: Duration?) async throws -> Void
    /// The wrapped clock's resolution.
    public let minimumResolution: Duration

    /// Wraps `clock`; its instants count from now.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepFor = { offset, tolerance in
            try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance)
        }
        minimumResolution = clock.minimumResolution
    }

    /// The system's monotonic clock, which keeps counting while the machine sleeps: one for
    /// the process, so the instants of every component that defaults to it compare.
    public static let continuous = AnyClock(ContinuousClock())

    /// The time since the clock was wrapped, by the wrapped clock.
    public var now: Instant { Instant(offset: elapsed()) }

    /// Sleeps on the wrapped clock until `deadline`; throws when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleepFor(deadline.offset, tolerance)
    }
}

/// A monotonic clock that moves only when a test calls `advance`. Sleepers wake, in deadline
/// order, when time reaches their deadline; a cancelled sleeper throws `CancellationError`.
public final class ManualClock: Clock {
    /// Offsets from the clock's start, which `advance` moves.
    public typealias Instant = OffsetInstant

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
        /// Tasks waiting for a number of sleepers: `waitForSleepers`.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// A clock at zero with nobody sleeping.
    public init() {}

    /// Where the tests have moved it to.
    public var now: Instant { state.withLock { $0.now } }
    /// Zero: time moves only in the steps given.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// When the sleeping tasks will wake, earliest first.
    public var pendingDeadlines: [Instant] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    /// Returns once `advance` reaches `deadline` (at once if it has), or throws `CancellationError`
    /// when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, Self.satisfiedWatchers(&state))
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: max(duration, .zero))
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves time forward to `instant` (never back).
    public func advance(to instant: Instant) {
        advance(by: now.duration(to: instant))
    }

    /// Returns once at least `count` tasks sleep on this clock, so a test advances time only
    /// after the code under test is waiting for it.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.sleepers.count < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func satisfiedWatchers(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let sleeping = state.sleepers.count
        let ready = state.watchers.filter { $0.count <= sleeping }.map(\.continuation)
        state.watchers.removeAll { $0.count <= sleeping }
        return ready
    }
}
