import AdamantCLI
import AdamantCore
import AdamantNodes
import AdamantPush

/// What `flush --loop` logs after each pass: one line of counts, then a line for each thing
/// that needs someone (a refusal, missing funds, a failing node). Tokens appear only as the
/// hint the report prints.
enum FlushLog {
    static func log(_ report: FlushReport, pass: Int, _ logger: Logger) {
        logger.log(.info, "flush: pass \(pass): " + summary(report.keys))
        if let problem = report.networkProblem { logger.log(.warning, "flush: nodes: \(problem)") }
        for key in report.keys {
            let token = OutboxReport.hint(key.token)
            switch key.newest.state {
            case .failed(let reason):
                logger.log(.error, "flush: \(key.newest.action.rawValue) \(token) was refused for good: \(reason)")
            case .waitingForFunds:
                let balance = report.balance.map { "\($0) ADM" } ?? "too low"
                logger.log(
                    .warning,
                    "flush: \(key.newest.action.rawValue) \(token) waits for funds: a signal costs 0.001 ADM, the balance is \(balance)"
                )
            default:
                if let error = key.lastError, !key.isSettled {
                    logger.log(.warning, "flush: \(key.newest.action.rawValue) \(token): the last try failed: \(error)")
                }
            }
            logger.log(.debug, "flush: " + OutboxReport.line(key))
        }
    }

    /// `2 applied, 1 in flight`: the keys counted by the state of their newest intent.
    static func summary(_ keys: [KeyStatus]) -> String {
        guard !keys.isEmpty else { return "nothing kept to send" }
        var counts: [String: Int] = [:]
        for key in keys { counts[word(key.newest.state), default: 0] += 1 }
        let order = ["applied", "in flight", "pending", "waiting for funds", "overridden", "failed", "superseded"]
        return order.compactMap { word in counts[word].map { "\($0) \(word)" } }.joined(separator: ", ")
    }

    private static func word(_ state: IntentState) -> String {
        switch state {
        case .applied: "applied"
        case .inflight: "in flight"
        case .pending: "pending"
        case .waitingForFunds: "waiting for funds"
        case .failed: "failed"
        case .superseded: "superseded"
        case .overridden: "overridden"
        }
    }
}
