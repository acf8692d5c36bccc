import AdamantNodes
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The write end of the pipe the signal handler writes to (-1 when none): the handler may
/// only make async-signal-safe calls, so it reads a lock-free atomic and writes one byte.
private let stopPipe = Atomic<Int32>(-1)

/// Readable from the first stop a `StopOnSignals` took on: a write that waits for a reader
/// who stopped reading polls it beside its own descriptor (`Output`), so that reader never
/// holds a stop up. Never read, so it stays readable.
enum StopNotice {
    private static let ends = Mutex<(read: Int32, write: Int32)?>(nil)

    /// The descriptor to poll, or -1 while no command stops on signals.
    static var descriptor: Int32 { ends.withLock { $0?.read ?? -1 } }

    /// Made once, by the first `StopOnSignals`.
    fileprivate static func arm() {
        ends.withLock { ends in
            guard ends == nil else { return }
            var pair: [Int32] = [-1, -1]
            guard pipe(&pair) == 0 else { return }
            for end in pair { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            ends = (pair[0], pair[1])
        }
    }

    fileprivate static func post() {
        guard let end = ends.withLock({ $0?.write }) else { return }
        var byte: UInt8 = 1
        _ = write(end, &byte, 1)
    }
}

/// SIGINT, SIGTERM and SIGHUP (its terminal gone) cancel a long-running command's task (`watch`, `flush --loop`) instead
/// of ending the process, so the current item finishes and what is kept stays consistent; the
/// command then exits 0, as one stopped the way it is meant to be stopped. A handler that writes to a pipe, read by a thread
/// of its own, rather than a dispatch signal source: on Linux those read a signalfd, which
/// sees a signal only if every thread blocks it, and the threads already running do not.
public final class StopOnSignals: Sendable {
    private final class State: Sendable {
        struct Held {
            var signal: Int32?
            /// The `run`s waiting for a signal, by the number each took.
            var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
            var next = 0
        }
        let lock = Mutex(Held())
    }
    private let state = State()
    private let readEnd: Int32

    public init() {
        StopNotice.arm()
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            readEnd = -1
            return  // without a pipe the signals keep their default: they end the process
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        stopPipe.store(ends[1], ordering: .sequentiallyConsistent)
        let state = self.state
        let readEnd = self.readEnd
        DetachedThread.start {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { break }  // closed: released
                let waiting = state.lock.withLock { state in
                    state.signal = state.signal ?? Int32(byte)
                    defer { state.waiting = [:] }
                    return state.waiting.values
                }
                StopNotice.post()
                for waiter in waiting { waiter.resume() }
            }
            close(readEnd)
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            let descriptor = stopPipe.load(ordering: .sequentiallyConsistent)
            if descriptor >= 0 { _ = write(descriptor, &byte, 1) }
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in Self.signals { sigaction(number, &action, nil) }
    }

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Whether a signal came.
    public var requested: Bool { state.lock.withLock { $0.signal != nil } }

    /// The first signal that came, by name ("SIGTERM").
    public var signalName: String? {
        state.lock.withLock { $0.signal }.map { number in
            [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][number] ?? "signal \(number)"
        }
    }

    /// Runs `body` as a child task that the first signal cancels (at once, if one came
    /// already), beside a child that waits for the signal, and gives what `body` returned or
    /// threw; `requested` then tells whether a signal ended it. Cancelling the caller cancels
    /// both, as for any task group.
    public func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let ended = await withTaskGroup(of: Result<Value, Failure>?.self) { group in
            group.addTask {
                do throws(Failure) { return .success(try await body()) } catch { return .failure(error) }
            }
            group.addTask {
                await self.signalled()
                return nil
            }
            var ended: Result<Value, Failure>?
            // Whichever ends first ends the other: a signal cancels the body, the body's end
            // the wait.
            while let next = await group.next() {
                group.cancelAll()
                if let next { ended = next }
            }
            return ended
        }
        guard let ended else { preconditionFailure("the body's child always ends with a result") }
        return try ended.get()
    }

    /// Returns once a signal came (at once, if one came already), or the task is cancelled.
    private func signalled() async {
        let number = state.lock.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.lock.withLock { state in
                    guard state.signal == nil, !Task.isCancelled else { return true }
                    state.waiting[number] = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            state.lock.withLock { $0.waiting.removeValue(forKey: number) }?.resume()
        }
    }

    /// From here on a signal is ignored (the process is stopping anyway).
    public func release() {
        for number in Self.signals { signal(number, SIG_IGN) }
        let writeEnd = stopPipe.exchange(-1, ordering: .sequentiallyConsistent)
        if writeEnd >= 0 { close(writeEnd) }
    }
}
