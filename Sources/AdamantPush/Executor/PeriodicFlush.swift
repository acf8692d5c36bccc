public import AdamantNodes

/// The outbox's turn beside a long-running reader (a watch): now and then, an outbox with
/// unsettled intents gets a short flush. Failures are logged and never end the reader.
public struct PeriodicFlush: Sendable {
    /// How often the outbox is given a chance.
    public var interval: Duration = .seconds(300)
    /// How long each flush may take.
    public var budget: Duration = .seconds(30)
    let outbox: Outbox
    let events: any LogSink

    /// Flushes of `outbox`, logging to `events`.
    public init(outbox: Outbox, events: any LogSink) {
        (self.outbox, self.events) = (outbox, events)
    }

    /// Flushes when due, every `interval` on the outbox's clock, until cancelled.
    public func run() async {
        while !Task.isCancelled {
            await flushIfDue()
            try? await outbox.chain.clock.sleep(for: interval)
        }
    }

    func flushIfDue() async {
        do {
            let unsettled = try await outbox.queue().contains { group in
                switch group.last?.state {
                case .pending?, .inflight?: true
                default: false
                }
            }
            guard unsettled, !Task.isCancelled else { return }
            let report = try await outbox.flush(within: budget)
            if let problem = report.networkProblem { events.log(.warning, "watch: registrations wait: \(problem)") }
        } catch {
            events.log(.warning, "watch: registrations could not be flushed: \(error)")
        }
    }
}
