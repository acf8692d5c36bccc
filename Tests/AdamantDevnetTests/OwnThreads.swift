import Foundation
import Synchronization
import Testing

/// A few threads of its own that run the jobs they are given in turn, never on the cooperative
/// pool.
final class OwnThreadsExecutor: TaskExecutor {
    static let shared = OwnThreadsExecutor(threads: 2)

    private let jobs = Mutex<[UnownedJob]>([])
    private let waiting = DispatchSemaphore(value: 0)

    init(threads: Int) {
        for _ in 0..<threads {
            Thread.detachNewThread { [self] in
                while true {
                    waiting.wait()
                    guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        waiting.signal()
    }
}

/// A suite whose tests block their thread (synchronous HTTP to the devnet, `poll`, `waitpid`)
/// runs them on threads of their own: the cooperative pool has one thread per core, two here,
/// and a test that holds one for seconds stops every other suite's tasks, whose deadlines then
/// pass while they wait to run. Two threads, as many as these suites had before: they take
/// turns among themselves, and only among themselves.
struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(OwnThreadsExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreads {
    /// See `OwnThreads`.
    static var ownThreads: Self { OwnThreads() }
}
