import Dispatch
import Foundation
import Synchronization

/// Threads we own for blocking `curl_easy_perform` calls, so they never occupy Swift's
/// cooperative pool (two threads on this machine). Each worker keeps one easy handle for its
/// life; workers start on demand, up to `maxWorkers`, and exit when the pool is released.
final class CurlWorkerPool: Sendable {
    /// Runs on a worker thread; the handle is nil only if libcurl could not allocate one.
    typealias Job = @Sendable (CurlEasy?) -> Void

    private let queue: JobQueue

    init(maxWorkers: Int) { queue = JobQueue(maxWorkers: max(1, maxWorkers)) }

    deinit { queue.close() }

    func submit(_ job: @escaping Job) {
        guard queue.enqueue(job) else { return }
        let queue = self.queue
        let thread = Thread {
            let easy = CurlEasy()
            while let job = queue.next() { job(easy) }
        }
        thread.name = "adm-curl"
        thread.start()
    }
}

/// Pending jobs and idle workers. Invariant: unless at `maxWorkers`, there are at least as
/// many idle workers as pending jobs, so a hedged request never queues behind a slow one.
private final class JobQueue: Sendable {
    private struct State {
        var jobs: [CurlWorkerPool.Job] = []
        var idleWorkers = 0
        var workers = 0
    }

    private let state = Mutex(State())
    /// One signal per job, plus one per worker on close.
    private let wakeUp = DispatchSemaphore(value: 0)
    private let maxWorkers: Int

    init(maxWorkers: Int) { self.maxWorkers = maxWorkers }

    /// Queues the job; true when the caller should start one more worker for it.
    func enqueue(_ job: @escaping CurlWorkerPool.Job) -> Bool {
        let needsWorker = state.withLock { state in
            state.jobs.append(job)
            guard state.jobs.count > state.idleWorkers, state.workers < maxWorkers else { return false }
            state.workers += 1
            return true
        }
        wakeUp.signal()
        return needsWorker
    }

    /// Blocks the worker thread until there is a job, or returns nil once the pool is closed.
    func next() -> CurlWorkerPool.Job? {
        state.withLock { $0.idleWorkers += 1 }
        wakeUp.wait()
        return state.withLock { state in
            state.idleWorkers -= 1
            return state.jobs.isEmpty ? nil : state.jobs.removeFirst()
        }
    }

    func close() {
        let workers = state.withLock { $0.workers }
        for _ in 0..<workers { wakeUp.signal() }
    }
}
