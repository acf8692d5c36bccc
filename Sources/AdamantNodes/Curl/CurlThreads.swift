#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif
import Synchronization

/// Every curl worker thread of the process, so that all of them can be stopped and joined
/// before `exit()`. A worker still cleaning up its handle (TLS state included) while exit's
/// handlers tear OpenSSL down crashes the process now and then (issue 7, finding 4).
final class CurlThreads: Sendable {
    static let shared = CurlThreads()

    private struct State {
        var isShutDown = false
        /// Open job queues, closed at shutdown so their idle workers return.
        var queues: [ObjectIdentifier: JobQueue] = [:]
        /// Started and not yet joined.
        var running: Set<pthread_t> = []
        /// Returned on their own (their pool was released): joined when the next thread starts.
        var returned: [pthread_t] = []
    }

    private let state = Mutex(State())
    private let shuttingDown = Atomic(false)

    /// Read by curl's progress callback: once set, every transfer aborts.
    var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) }

    /// Threads started and not yet joined.
    var unjoinedThreads: Int { state.withLock { $0.running.count + $0.returned.count } }

    /// Tracks `queue` until it closes; false (and the queue is closed) after shutdown.
    func register(_ queue: JobQueue) -> Bool {
        state.withLock { state in
            guard !state.isShutDown else { return false }
            state.queues[ObjectIdentifier(queue)] = queue
            return true
        }
    }

    func unregister(_ queue: JobQueue) {
        _ = state.withLock { $0.queues.removeValue(forKey: ObjectIdentifier(queue)) }
    }

    /// Runs `body` on a new thread; false when the process is shutting down or no thread
    /// could be made.
    func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let reaped = state.withLock { state in
            defer { state.returned.removeAll() }
            return state.returned
        }
        for thread in reaped { pthread_join(thread, nil) }  // they have returned: this does not wait

        return state.withLock { state in
            guard !state.isShutDown else { return false }
            let box = Unmanaged.passRetained(ThreadBody { [self] in
                body()
                finished()
            })
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { opaque in
                Unmanaged<ThreadBody>.fromOpaque(opaque!).takeRetainedValue().run()
                return nil
            }, box.toOpaque())
            guard created == 0 else {
                box.release()
                return false
            }
            state.running.insert(thread)
            return true
        }
    }

    /// Stops every worker and waits until each thread has ended: transfers abort, queued jobs
    /// fail, idle workers return. Later jobs fail at once. Call right before the process exits.
    func shutdown() {
        shuttingDown.store(true, ordering: .releasing)
        let (queues, threads) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.queues.removeAll()
                state.running.removeAll()
                state.returned.removeAll()
            }
            return (Array(state.queues.values), Array(state.running) + state.returned)
        }
        for queue in queues { queue.close() }
        for thread in threads { pthread_join(thread, nil) }
    }

    /// The calling worker's last act: from here on joining it does not wait.
    private func finished() {
        let me = pthread_self()
        state.withLock { state in
            // After shutdown the thread is already in someone's join list.
            guard state.running.remove(me) != nil else { return }
            state.returned.append(me)
        }
    }
}

/// A thread's work, handed to `pthread_create` through an opaque pointer.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
