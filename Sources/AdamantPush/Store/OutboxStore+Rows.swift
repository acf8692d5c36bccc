import AdamantCore
import AdamantStore

/// Rows to values and back. Every column is read as optional: a row that does not decode is
/// reported as damage by the caller.
extension OutboxStore {
    /// `id, token_tag, sequence, sealed, created_at, active_since, state, applied_height, failure, retries, not_before, must_send`,
    /// then `overridden_by` and the height, timestamp and sealed signal of the kept signal it names.
    static func intent(_ row: [SQLiteValue], scope: StoreScope, attempts: [Int64: [Attempt]]) -> Intent? {
        guard let id = row.integer(0), let tag = row.blob(1), let sequence = row.integer(2), let sealed = row.blob(3),
            let createdAt = row.integer(4), let activeSince = row.integer(5), let stateName = row.text(6),
            let retries = row.integer(9).flatMap({ Int(exactly: $0) }), let notBefore = row.integer(10),
            let mustSend = row.integer(11),
            let signal = SealedSignal.open(sealed, key: scope.key, context: scope.intentContext(tag: tag)),
            var state = intentState(stateName, height: row.integer(7), failure: row.text(8))
        else { return nil }
        if let overrider = row.integer(12) {
            guard state == .superseded, let overriding = overridingSignal(number: overrider, row, scope: scope) else {
                return nil
            }
            state = .overridden(by: overriding)
        }
        return Intent(
            id: id, sequence: sequence, signal: signal, createdAt: createdAt, activeSince: activeSince, state: state,
            attempts: attempts[id] ?? [], retries: retries, notBefore: notBefore, mustSend: mustSend != 0)
    }

    /// The kept signal an overridden intent names, from the row's last three columns.
    private static func overridingSignal(number: Int64, _ row: [SQLiteValue], scope: StoreScope) -> OwnSignal? {
        let id = TransactionID(number: UInt64(bitPattern: number))
        guard let height = row.integer(13), let timestamp = row.integer(14).flatMap({ Int32(exactly: $0) }),
            let sealed = row.blob(15),
            let signal = SealedSignal.open(sealed, key: scope.key, context: scope.signalContext(id: id))
        else { return nil }
        return OwnSignal(id: id, height: height, timestamp: timestamp, signal: signal)
    }

    static func intentState(_ name: String, height: Int64?, failure: String?) -> IntentState? {
        switch name {
        case "pending": .pending
        case "inflight": .inflight
        case "applied": .applied(height: height)
        case "superseded": .superseded
        case "waitingForFunds": .waitingForFunds
        case "failed": .failed(failure ?? "failed")
        default: nil
        }
    }

    /// The state's columns; an overridden intent is kept as superseded with the signal that
    /// overrode it (see the schema).
    static func columns(of state: IntentState) -> (name: String, height: Int64?, failure: String?, overriddenBy: Int64?)
    {
        switch state {
        case .pending: ("pending", nil, nil, nil)
        case .inflight: ("inflight", nil, nil, nil)
        case .applied(let height): ("applied", height, nil, nil)
        case .superseded: ("superseded", nil, nil, nil)
        case .overridden(let signal): ("superseded", signal.height, nil, Int64(bitPattern: signal.id.number))
        case .waitingForFunds: ("waitingForFunds", nil, nil, nil)
        case .failed(let reason): ("failed", nil, reason, nil)
        }
    }

    /// `intent, id, action, node, timestamp, sent_at, sent_height, outcome, height, message`
    static func attempt(_ row: [SQLiteValue]) -> Attempt? {
        guard let id = row.text(1).flatMap({ TransactionID($0) }),
            let action = row.text(2).flatMap(PushAction.init(rawValue:)),
            let node = row.text(3), let timestamp = row.integer(4).flatMap({ Int32(exactly: $0) }),
            let sentAt = row.integer(5), let sentHeight = row.integer(6), let outcomeName = row.text(7)
        else { return nil }
        let outcome: AttemptOutcome
        switch outcomeName {
        case "recorded": outcome = .recorded
        case "accepted": outcome = .accepted
        case "ambiguous": outcome = .ambiguous
        case "refused": outcome = .refused(row.text(9) ?? "refused")
        case "confirmed":
            guard let height = row.integer(8) else { return nil }
            outcome = .confirmed(height: height)
        case "absent": outcome = .absent
        default: return nil
        }
        return Attempt(
            id: id, action: action, node: node, timestamp: timestamp, sentAt: sentAt, sentHeight: sentHeight,
            outcome: outcome)
    }

    static func columns(of outcome: AttemptOutcome) -> (name: String, height: Int64?, message: String?) {
        switch outcome {
        case .recorded: ("recorded", nil, nil)
        case .accepted: ("accepted", nil, nil)
        case .ambiguous: ("ambiguous", nil, nil)
        case .refused(let message): ("refused", nil, message)
        case .confirmed(let height): ("confirmed", height, nil)
        case .absent: ("absent", nil, nil)
        }
    }
}

/// A change to one intent, as the executor applies the planner's steps.
enum IntentUpdate: Sendable {
    case state(intent: Int64, IntentState)
    /// Applied, or needing work again from `now` (with retries reset).
    case reopen(intent: Int64)
    /// A failed try: one more retry, not again before `notBefore`.
    case backOff(intent: Int64, notBefore: Int64)

    func run(on db: SQLiteConnection, now: Int64) throws {
        switch self {
        case .state(let intent, let state):
            let (name, height, failure, overriddenBy) = OutboxStore.columns(of: state)
            try db.query(
                "UPDATE intents SET state = ?1, applied_height = ?2, failure = ?3, overridden_by = ?4 WHERE id = ?5",
                [
                    .text(name), height.map(SQLiteValue.integer) ?? .null, failure.map(SQLiteValue.text) ?? .null,
                    overriddenBy.map(SQLiteValue.integer) ?? .null, .integer(intent),
                ])
        case .reopen(let intent):
            try db.query(
                "UPDATE intents SET state = 'pending', applied_height = NULL, active_since = ?1, retries = 0, not_before = 0 WHERE id = ?2",
                [.integer(now), .integer(intent)])
        case .backOff(let intent, let notBefore):
            try db.query(
                "UPDATE intents SET state = 'pending', retries = retries + 1, not_before = ?1 WHERE id = ?2",
                [.integer(notBefore), .integer(intent)])
        }
    }
}
