import Foundation
import Testing

/// Runs every job it is given on a thread of its own, never on the cooperative pool.
final class ThreadPerJobExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}

/// A suite whose tests block their thread (synchronous HTTP to the devnet, `poll`, `waitpid`)
/// runs them on threads of their own: the cooperative pool has one thread per core, two here,
/// and a test that holds one for seconds stops every other suite's tasks, whose deadlines then
/// pass while they wait to run.
struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(ThreadPerJobExecutor()) { try await function() }
    }
}

extension Trait where Self == OwnThreads {
    /// See `OwnThreads`.
    static var ownThreads: Self { OwnThreads() }
}
