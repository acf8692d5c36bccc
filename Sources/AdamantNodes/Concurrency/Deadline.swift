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

extension Duration {
    /// Whole milliseconds, rounded down, clamped to `Int64` (a configured duration may be huge).
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, tooLarge) = millis.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return tooLarge ? .max : total
    }
}
