import AdamantCLI
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The stop of a long-running command is structured: its body is a child of the caller's
/// task, so cancelling the caller ends the body, and a signal ends it as a cancellation.
@Suite("stop on signals", .serialized, .timeLimit(.minutes(1)))
struct StopOnSignalsTests {
    /// Runs `body` with a `StopOnSignals`, then gives the signals their default back.
    static func withStop(_ body: (StopOnSignals) async throws -> Void) async rethrows {
        let stop = StopOnSignals()
        defer {
            stop.release()
            for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
        }
        try await body(stop)
    }

    @Test func cancellingTheCallerCancelsTheBody() async throws {
        try await Self.withStop { stop in
            let started = Mutex(false)
            let caller = Task {
                try await stop.run { () async throws -> Int in
                    started.withLock { $0 = true }
                    // An hour: only a cancellation ends it within the test's minute.
                    try await Task.sleep(for: .seconds(3600))
                    return 1
                }
            }
            while !started.withLock({ $0 }) { await Task.yield() }
            caller.cancel()
            await #expect(throws: CancellationError.self) { try await caller.value }
            #expect(!stop.requested)
        }
    }

    @Test func aSignalEndsTheBodyAndIsNamed() async throws {
        try await Self.withStop { stop in
            let result = await stop.run { () async -> Bool in
                kill(getpid(), SIGHUP)
                // Ends when the signal's thread has cancelled this child.
                while !Task.isCancelled { await Task.yield() }
                return true
            }
            #expect(result && stop.requested && stop.signalName == "SIGHUP")
        }
    }

    @Test func aBodyThatEndsReturnsWithoutASignal() async throws {
        try await Self.withStop { stop in
            let value = try await stop.run { () async throws -> Int in 42 }
            #expect(value == 42 && !stop.requested)
        }
    }
}
