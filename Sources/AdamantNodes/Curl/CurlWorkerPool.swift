import Dispatch
import Synchronization

/// Threads we own for blocking `curl_easy_perform` calls, so they never occupy Swift's
/// cooperative pool (two threads on this machine). Workers start on demand, up to
/// `maxWorkers`, and end when the pool is released. Each job runs on the idle handle that last
/// talked to its origin (`CurlHandles`), so its keep-alive connection is used whichever worker
/// takes the job.
final class CurlWorkerPool: Sendable {
    /// Runs on a worker thread with a handle, or at once with the reason there is none, and
    /// returns what hands its outcome on. That runs once the handle is idle again: a request
    /// made as soon as the answer is in would otherwise not find its node's connection.
    typealias Job = @Sendable (Result<CurlEasy, TransportError>) -> HandOn
    typealias HandOn = @Sendable () -> Void

    /// A job and the origin (`CurlHandles.origin(of:)`) of the URL it is for.
    struct Work: Sendable {
        let origin: Substring
        let job: Job
    }

    private let queue: JobQueue
    private let handles: CurlHandles

    init(maxWorkers: Int) {
        queue = JobQueue(maxWorkers: max(1, maxWorkers))
        handles = CurlHandles(capacity: max(1, maxWorkers))
    }

    deinit { queue.close() }

    func submit(for url: String, _ job: @escaping Job) {
        switch queue.enqueue(Work(origin: CurlHandles.origin(of: url), job: job)) {
        case .closed:
            job(.failure(JobQueue.shutDownError))()
        case .queued:
            break
        case .queuedWithNewWorker:
            let (queue, handles) = (self.queue, self.handles)
            let started = DetachedThread.start {
                while let work = queue.next() {
                    let easy = handles.checkOut(for: work.origin)
                    let handOn = work.job(easy)
                    if case .success(let easy) = easy { handles.checkIn(easy, from: work.origin) }
                    handOn()
                }
            }
            if !started { queue.workerFailedToStart() }
        }
    }
}

/// Pending jobs and idle workers. Invariant: unless at `maxWorkers`, there are at least as
/// many idle workers as pending jobs, so a hedged request never queues behind a slow one.
final class JobQueue: Sendable {
    enum Admission { case closed, queued, queuedWithNewWorker }

    static let shutDownError = TransportError.failed("the HTTP transport has shut down")

    private struct State {
        var jobs: [CurlWorkerPool.Work] = []
        var idleWorkers = 0
        var workers = 0
        var isClosed = false

        enum Wake {
            case job(CurlWorkerPool.Work)
            case closed, spurious
        }

        /// For a worker that was just woken.
        mutating func takeJob() -> Wake {
            if isClosed {
                idleWorkers -= 1
                return .closed
            }
            guard !jobs.isEmpty else { return .spurious }
            idleWorkers -= 1
            return .job(jobs.removeFirst())
        }
    }

    private let state = Mutex(State())
    /// One signal per job, plus one per worker on close.
    private let wakeUp = DispatchSemaphore(value: 0)
    private let maxWorkers: Int

    init(maxWorkers: Int) { self.maxWorkers = maxWorkers }

    func enqueue(_ job: CurlWorkerPool.Work) -> Admission {
        let admission = state.withLock { state -> Admission in
            guard !state.isClosed else { return .closed }
            state.jobs.append(job)
            guard state.jobs.count > state.idleWorkers, state.workers < maxWorkers else { return .queued }
            state.workers += 1
            return .queuedWithNewWorker
        }
        if admission != .closed { wakeUp.signal() }
        return admission
    }

    /// Blocks the worker thread until there is a job, or returns nil once the queue is closed.
    func next() -> CurlWorkerPool.Work? {
        let isOpen = state.withLock { state in
            if !state.isClosed { state.idleWorkers += 1 }
            return !state.isClosed
        }
        guard isOpen else { return nil }
        while true {
            wakeUp.wait()
            switch state.withLock({ $0.takeJob() }) {
            case .job(let job): return job
            case .closed: return nil
            case .spurious: continue  // a job's signal whose job failed instead (workerFailedToStart)
            }
        }
    }

    /// The thread for the last `.queuedWithNewWorker` could not start. With no worker at all,
    /// the queued jobs fail now rather than wait forever.
    func workerFailedToStart() {
        let stranded = state.withLock { state -> [CurlWorkerPool.Work] in
            state.workers -= 1
            guard state.workers == 0 else { return [] }
            defer { state.jobs.removeAll() }
            return state.jobs
        }
        for work in stranded { work.job(.failure(.failed("no thread could be started for the request")))() }
    }

    /// Wakes every worker to return and fails the jobs still queued. Idempotent.
    func close() {
        let (workers, pending) = state.withLock { state -> (Int, [CurlWorkerPool.Work]) in
            guard !state.isClosed else { return (0, []) }
            state.isClosed = true
            defer { state.jobs.removeAll() }
            return (state.workers, state.jobs)
        }
        for _ in 0..<workers { wakeUp.signal() }
        for work in pending { work.job(.failure(Self.shutDownError))() }
    }
}
