import AdamantCore

/// The operation's result, or nil when `deadline` comes first on `clock`; the operation is
/// then cancelled. Returns promptly only if the operation honours cancellation promptly.
func untilDeadline<T: Sendable>(
    _ deadline: AnyClock.Instant, on clock: AnyClock, _ operation: @escaping @Sendable () async -> T
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await clock.sleep(until: deadline)
            return nil
        }
        defer { group.cancelAll() }
        return await group.next() ?? nil
    }
}
