import AdamantCLI
import AdamantCore
import AdamantNodes
import AdamantPush

/// How outbox results are shown: one line per token in text, one object in JSON. Tokens are
/// shown only as a hint (their ends): the store keeps them sealed, and output is not a place
/// for them either.
enum OutboxReport {
    static func hint(_ token: String) -> String {
        token.count <= 12 ? token : "\(token.prefix(6))…\(token.suffix(4))"
    }

    static func state(_ state: IntentState) -> String {
        switch state {
        case .pending: "pending"
        case .inflight: "in flight"
        case .applied(let height?): "applied (block \(height))"
        case .applied(nil): "applied (nothing to send)"
        case .superseded: "superseded"
        case .overridden(let signal): "\(overriding(signal)) by another client at block \(signal.height)"
        case .waitingForFunds: "waiting for funds"
        case .failed(let reason): "failed: \(reason)"
        }
    }

    /// What another client's signal did: `unregistered`, `registered (fcm)`.
    static func overriding(_ signal: OwnSignal) -> String {
        signal.signal.action == .remove ? "unregistered" : "registered (\(signal.signal.provider.rawValue))"
    }

    static func outcome(_ outcome: AttemptOutcome) -> String {
        switch outcome {
        case .recorded: "recorded, no answer kept (it may land)"
        case .accepted: "in a node's pool"
        case .ambiguous: "no clear answer (it may land)"
        case .refused(let message): "refused: \(message)"
        case .confirmed(let height): "in block \(height)"
        case .absent: "not found on the nodes: it cannot land"
        }
    }

    static func chain(_ state: TokenState?) -> String {
        guard let state else { return "unknown (no node)" }
        switch state.standing {
        case .never: return "never registered"
        case .registered:
            return "registered (\(state.last.map { "\($0.signal.provider.rawValue), block \($0.height)" } ?? ""))"
        case .unregistered: return "unregistered (block \(state.last?.height ?? 0))"
        case .atRisk: return "at risk (block \(state.last?.height ?? 0)): the service may hold either outcome"
        }
    }

    static func waiting(_ wait: Planner.Wait?) -> String? {
        switch wait {
        case .attemptsInFlight(let ids)?:
            "waiting for \(ids.count == 1 ? "signal \(ids[0])" : "\(ids.count) signals") to land or be proven absent"
        case .height(let height)?: "waiting for block \(height) (to keep clear of an opposite signal)"
        case .time?: "backing off after a failed try"
        case .replayWindow?: "waiting a few seconds to keep clear of the device's last signal"
        case nil: nil
        }
    }

    /// `action token: state; chain: …`
    static func line(_ key: KeyStatus) -> String {
        var parts = [
            "\(key.newest.action.rawValue) \(hint(key.token)) (\(key.newest.signal.provider.rawValue))\(device(key.newest.signal)): \(state(key.newest.state))"
        ]
        parts.append("chain: \(chain(key.chain))")
        if let waiting = waiting(key.waiting) { parts.append(waiting) }
        let inFlight = key.newest.liveAttempts.count
        if inFlight > 0 { parts.append("\(inFlight) in flight") }
        if let error = key.lastError, !key.newest.state.isFailure { parts.append("last error: \(error)") }
        return parts.joined(separator: "; ")
    }

    /// ` on device ab12…cd34` for adamant-ns, whose registrations are devices.
    static func device(_ signal: PushSignal) -> String { signal.deviceId.map { " on device \(hint($0))" } ?? "" }

    struct KeyJSON: Encodable {
        let token: String
        let device: String?
        let provider: String
        let action: String
        let sequence: Int64
        let state: String
        let height: Int64?
        let chain: String?
        let atRisk: Bool
        let waiting: String?
        let attemptsInFlight: [String]
        let lastError: String?

        init(_ key: KeyStatus) {
            token = OutboxReport.hint(key.token)
            device = key.newest.signal.deviceId.map(OutboxReport.hint)
            provider = key.newest.signal.provider.rawValue
            action = key.newest.action.rawValue
            sequence = key.newest.sequence
            state =
                switch key.newest.state {
                case .pending: "pending"
                case .inflight: "inflight"
                case .applied: "applied"
                case .superseded: "superseded"
                case .overridden: "overridden"
                case .waitingForFunds: "waitingForFunds"
                case .failed: "failed"
                }
            height =
                switch key.newest.state {
                case .applied(let applied): applied
                case .overridden(let signal): signal.height
                default: nil
                }
            chain = key.chain.map {
                switch $0.standing {
                case .never: "never"
                case .registered: "registered"
                case .unregistered: "unregistered"
                case .atRisk: "atRisk"
                }
            }
            atRisk = key.chain?.standing == .atRisk
            waiting = OutboxReport.waiting(key.waiting)
            attemptsInFlight = key.newest.liveAttempts.map(\.id.description)
            if case .failed(let reason) = key.newest.state { lastError = reason } else { lastError = key.lastError }
        }
    }

    struct ReportJSON: Encodable {
        let tokens: [KeyJSON]
        let balance: String?
        let networkProblem: String?
        var pushes: String? = nil
    }

    /// `evidence`: what the recorded pushes say (status only), in the JSON as `pushes`.
    static func print(_ report: FlushReport, json: Bool, evidence: String? = nil, _ context: Context) {
        if json {
            context.output.printJSON(
                ReportJSON(
                    tokens: report.keys.map(KeyJSON.init), balance: report.balance?.description,
                    networkProblem: report.networkProblem?.description, pushes: evidence))
            return
        }
        for key in report.keys { context.output.print(line(key)) }
        switch report.networkProblem {
        case .proxyFailed(let fault)?: context.output.error("Error: \(fault)")
        case let problem?: context.output.error("nodes: \(problem)")
        case nil: break
        }
    }

    /// The exit code for waiting on `keys`: 0 nothing left to send (applied, or overridden by
    /// another client); 1 one needs the user (refused for good, or no funds); 75 still queued.
    static func exitCode(for keys: [KeyStatus]) -> ExitCode {
        if keys.contains(where: { $0.newest.state.isFailure || $0.newest.state == .waitingForFunds }) {
            return .rejected
        }
        let done = keys.allSatisfy { key in
            switch key.newest.state {
            case .applied, .overridden: true
            default: false
            }
        }
        return done ? .success : .temporaryFailure
    }

    /// What to tell the user after waiting, on standard error.
    static func advice(_ keys: [KeyStatus], balance: ADMAmount?, _ context: Context) {
        if keys.contains(where: { $0.newest.state == .waitingForFunds }) {
            let shown = balance.map { "\($0) ADM" } ?? "too low"
            context.output.error(
                "Error: not enough ADM: a signal costs 0.001 ADM and the balance is \(shown). Fund the account; 'adm-push flush' then sends it."
            )
        }
        for key in keys {
            if case .failed(let reason) = key.newest.state {
                context.output.error("Error: \(hint(key.token)) was refused for good: \(reason)")
            }
        }
        if keys.contains(where: { !$0.isSettled }) {
            context.output.error(
                "Queued: kept in the outbox; 'adm-push flush' (or the next register or unregister) finishes it.")
        }
    }
}

extension IntentState {
    var isFailure: Bool { if case .failed = self { true } else { false } }
}
