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
        /// Started and not yet returned.
        var running: Set<pthread_t> = []
        /// The thread that returned last. Each returning thread joins the one before it, so
        /// joins never block a cooperative thread, and joining this one waits for them all.
        var lastReturned: pthread_t?
    }

    private let state = Mutex(State())
    private let shuttingDown = Atomic(false)

    /// Read by curl's progress callback: once set, every transfer aborts.
    var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) }

    /// Threads started and not yet joined.
    var unjoinedThreads: Int { state.withLock { $0.running.count + ($0.lastReturned == nil ? 0 : 1) } }

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
        state.withLock { state in
            guard !state.isShutDown else { return false }
            let box = Unmanaged.passRetained(ThreadBody { [self] in
                body()
                returned()
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
                state.lastReturned = nil
            }
            return (Array(state.queues.values), Array(state.running) + (state.lastReturned.map { [$0] } ?? []))
        }
        for queue in queues { queue.close() }
        CurlSockets.shutDownAll()  // a transfer held by a silent node ends now, not at its next progress tick
        for thread in threads { pthread_join(thread, nil) }
    }

    /// The calling worker's last act: it joins the thread that returned before it (which has
    /// nothing left to do but end) and becomes the one the next returning thread joins.
    private func returned() {
        let me = pthread_self()
        let predecessor = state.withLock { state -> pthread_t? in
            // After shutdown, `shutdown` joins this thread and whichever returned before it.
            guard !state.isShutDown, state.running.remove(me) != nil else { return nil }
            defer { state.lastReturned = me }
            return state.lastReturned
        }
        if let predecessor { pthread_join(predecessor, nil) }
    }
}

/// A thread's work, handed to `pthread_create` through an opaque pointer.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
