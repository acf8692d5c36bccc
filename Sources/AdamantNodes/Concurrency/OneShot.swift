import Synchronization

/// A value handed once to one waiting task by whichever comes first: a producer on any
/// thread, or the task's cancellation. Lets blocking work on our own threads resume async
/// code, and lets a cancelled task stop waiting at once while the work winds down.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case delivered(Value)
    }

    private let state = Mutex(State.empty)

    /// Waits for `deliver`. `start` runs once the waiter is in place, unless cancellation came
    /// first; on cancellation the wait ends with `cancelledValue` and `onCancel` runs.
    func value(
        orOnCancel cancelledValue: Value, onCancel: @Sendable () -> Void = {}, start: () -> Void = {}
    ) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = state.withLock { state -> Value? in
                    guard case .delivered(let value) = state else {
                        state = .waiting(continuation)
                        return nil
                    }
                    return value
                }
                if let early { continuation.resume(returning: early) } else { start() }
            }
        } onCancel: {
            onCancel()
            deliver(cancelledValue)
        }
    }

    /// Hands over the value; later deliveries are ignored.
    func deliver(_ value: Value) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
            switch state {
            case .delivered: return nil
            case .empty:
                state = .delivered(value)
                return nil
            case .waiting(let continuation):
                state = .delivered(value)
                return continuation
            }
        }
        continuation?.resume(returning: value)
    }

    var isDelivered: Bool {
        state.withLock { if case .delivered = $0 { true } else { false } }
    }
}
