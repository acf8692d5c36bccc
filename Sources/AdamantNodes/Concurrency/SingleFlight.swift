import Synchronization

/// Runs one operation at a time: callers that arrive while it runs share its completion
/// instead of starting their own. Waiting can be cancelled; the operation itself runs to
/// its end in its own task, so one impatient caller never spoils it for the others.
final class SingleFlight: Sendable {
    /// nil while idle; otherwise everyone waiting for the current run.
    private let waiters = Mutex<[OneShot<Void>]?>(nil)

    /// Starts the operation unless it is already running, then waits for that run to end.
    func run(_ operation: @escaping @Sendable () async -> Void) async {
        let waiter = OneShot<Void>()
        start(operation, waiter: waiter)
        await waiter.value(orOnCancel: ())
    }

    /// Starts the operation unless it is already running; does not wait.
    func trigger(_ operation: @escaping @Sendable () async -> Void) {
        start(operation, waiter: nil)
    }

    private func start(_ operation: @escaping @Sendable () async -> Void, waiter: OneShot<Void>?) {
        let leads = waiters.withLock { waiters in
            defer { waiters = (waiters ?? []) + (waiter.map { [$0] } ?? []) }
            return waiters == nil
        }
        guard leads else { return }
        Task {
            await operation()
            let finished = waiters.withLock { waiters in
                defer { waiters = nil }
                return waiters ?? []
            }
            for waiter in finished { waiter.deliver(()) }
        }
    }
}
