import AdamantNodes
import AdamantPush

/// The registration scheduler, run now and then while watching: an outbox with unsettled
/// intents gets a short flush. Failures are logged and never end the watch.
struct RegistrationChore: Sendable {
    let outbox: Outbox
    let configuration: Watcher.Configuration
    let events: any LogSink

    func run() async {
        while !Task.isCancelled {
            await flushIfDue()
            try? await outbox.chain.clock.sleep(for: configuration.registrationInterval)
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
            let report = try await outbox.flush(within: configuration.registrationBudget)
            if let problem = report.networkProblem { events.log(.warning, "watch: registrations wait: \(problem)") }
        } catch {
            events.log(.warning, "watch: registrations could not be flushed: \(error)")
        }
    }
}
