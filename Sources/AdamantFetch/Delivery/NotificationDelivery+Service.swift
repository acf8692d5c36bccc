import AdamantCore
import AdamantNodes

/// The bubbles' way to the service: one at a time, its answer awaited, and kept in order,
/// recorded as undelivered, while the service is away.
///
/// The executor (`Notifier`) sends the one bubble `next()` hands it and answers it exactly once,
/// from a task of its own, while the service's events (`lost`, a click, a close), the retry tick
/// and a reconnect's answer come from other tasks, in any order around it. So the service may be
/// lost, or connected again by another account's reconnect, while a bubble is with it, and a
/// reconnect may fail after another one succeeded; each of those is handled quietly. An answer
/// for a bubble that is not the one with the service is what no executor sends: it stops a debug
/// build, and a release one logs and ignores it.
extension NotificationDelivery {
    /// Where the service stands, and the bubble of ours it has: each case carries what only it
    /// can have, so a bubble with a service that is being connected, or clicks kept for an answer
    /// when no bubble awaits one, cannot be written. That the service went away and its return
    /// is to be logged is being anything but connected.
    enum State: Sendable {
        /// Connected; `sending` is the bubble with it, if any.
        case connected(sending: InFlight?)
        /// Asked to connect again; nothing goes out until it answers.
        case connecting
        /// Gone: lost, or unreachable. `sending` is a bubble that was with it when it went: its
        /// call runs on and answers.
        case away(sending: InFlight?)

        /// The bubble with the service.
        var sending: InFlight? {
            switch self {
            case .connected(let sending), .away(let sending): sending
            case .connecting: nil
            }
        }

        /// Takes the bubble `serial` back from the service, which stays as it is; nil when the
        /// service does not have it.
        mutating func answered(_ serial: Int) -> InFlight? {
            switch self {
            case .connected(let sending?) where sending.pending.serial == serial:
                self = .connected(sending: nil)
                return sending
            case .away(let sending?) where sending.pending.serial == serial:
                self = .away(sending: nil)
                return sending
            case .connected, .connecting, .away:
                return nil
            }
        }

        /// Changes the bubble with the service, when there is one.
        mutating func updateSending(_ change: (inout InFlight) -> Void) {
            switch self {
            case .connected(var sending?):
                change(&sending)
                self = .connected(sending: sending)
            case .away(var sending?):
                change(&sending)
                self = .away(sending: sending)
            case .connected(nil), .connecting, .away(nil):
                break
            }
        }
    }

    /// The one bubble with the service, until its answer.
    struct InFlight: Sendable {
        var pending: Pending
        /// Clicks and closes of bubbles not known yet: the service shows a bubble as it takes
        /// it, so on a loaded machine the user's click can come before the answer that names the
        /// bubble. The answer acts on those for its bubble and drops the rest, which were some
        /// other program's; a few at most are kept.
        var early: [(id: UInt32, event: Event)] = []

        static let earlyLimit = 8
    }

    /// A bubble on its way to the service: its chat (none for a summary, which replaces and
    /// counts nothing) and the transactions it shows.
    struct Pending: Sendable, Hashable {
        let serial: Int
        let chat: ChatBubbles.Chat?
        let isTransfer: Bool
        let presentation: NotificationPolicy.Presentation
        /// When it was sent, in the chain's milliseconds: the chat's bubble shows its newest.
        let sentAt: Int64
        let ids: [TransactionID]
        /// Its transactions are recorded as undelivered (held and missed ones from the start).
        var recorded: Bool
        var refusals = 0
    }

    /// The service answered, at first or again: its bubbles' ids are the new connection's.
    mutating func connected(_ server: String) -> [Action] {
        let wasAway: Bool
        switch state {
        case .connected: wasAway = false
        case .connecting, .away: wasAway = true
        }
        state = .connected(sending: state.sending)
        bubbles = ChatBubbles(wording: configuration.wording)
        let back: [Action] = wasAway ? [.log(.info, "desktop: the notification service is back: \(server)")] : []
        return back + next()
    }

    /// The first waiting bubble to the service, when it is there and has none of ours; a
    /// service that went away is asked again.
    mutating func next() -> [Action] {
        guard !waiting.isEmpty else { return [] }
        switch state {
        case .connected(_?), .connecting, .away(_?):
            return []
        case .away(nil):
            state = .connecting
            return [.connect]
        case .connected(nil):
            let first = waiting.removeFirst()
            state = .connected(sending: InFlight(pending: first))
            var counted = bubbles
            let (replacing, count, shows) =
                first.chat.map {
                    counted.arrived(in: $0, isTransfer: first.isTransfer, sentAt: first.sentAt, first.presentation)
                } ?? (0, nil, first.presentation)
            return [
                .notify(
                    Bubble(
                        serial: first.serial, presentation: shows, count: count, replacing: replacing,
                        actions: first.chat != nil && configuration.stays))
            ]
        }
    }

    /// The bubble `serial` is on screen as `id`: its chat counts it, and the clicks and closes
    /// read before the answer that are for it are acted on now.
    mutating func notified(_ serial: Int, as id: UInt32, at now: Moment) -> [Action] {
        guard let answered = state.answered(serial) else { return unexpected(answerFor: serial) }
        let delivered = answered.pending
        if let chat = delivered.chat {
            _ = bubbles.arrived(
                in: chat, isTransfer: delivered.isTransfer, sentAt: delivered.sentAt, delivered.presentation)
            bubbles.shown(chat, as: id)
        }
        let earlier = answered.early.filter { $0.id == id }.map(\.event)
        return (delivered.recorded ? [.record(.delivered(delivered.ids))] : [])
            + earlier.flatMap { handle($0, at: now) } + next()
    }

    /// A refusal is asked again at the next notification or tick, up to its last.
    mutating func refused(_ serial: Int, _ reason: String) -> [Action] {
        guard var refused = state.answered(serial)?.pending else { return unexpected(answerFor: serial) }
        refused.refusals += 1
        let limit = Self.maximumRefusals
        guard refused.refusals >= limit else {
            waiting.insert(refused, at: 0)
            let times = "(\(refused.refusals) of \(limit) times)"
            return [.log(.warning, "desktop: the notification service refused a notification \(times): \(reason)")]
                + recordWaiting()
        }
        let given = "given up and recorded as not delivered"
        return [
            .log(
                .warning, "desktop: the notification service refused a notification \(limit) times, \(given): \(reason)"
            )
        ]
            + (refused.recorded ? [] : [.record(.undelivered(refused.ids))]) + next()
    }

    /// The bubble `serial` did not reach the service: it waits first again, until the service
    /// is back.
    mutating func unreachable(_ serial: Int, _ reason: String) -> [Action] {
        guard let kept = state.answered(serial)?.pending else { return unexpected(answerFor: serial) }
        waiting.insert(kept, at: 0)
        state = .away(sending: nil)
        return [
            .log(.warning, "desktop: a notification could not be shown, kept until the service is back: \(reason)")
        ] + recordWaiting()
    }

    /// Keeps `event` for the answer to come when it names a bubble not known while one is
    /// with the service; whether it was kept.
    mutating func keptEarly(_ event: Event, id: UInt32) -> Bool {
        guard state.sending != nil, bubbles.chat(shownAs: id) == nil else { return false }
        state.updateSending { $0.early = $0.early.suffix(InFlight.earlyLimit - 1) + [(id, event)] }
        return true
    }

    /// Records what waits and is not recorded yet as undelivered, the bubble with the service
    /// first, so that a later process shows it.
    mutating func recordWaiting() -> [Action] {
        var ids: [TransactionID] = []
        state.updateSending { sending in
            guard !sending.pending.recorded else { return }
            sending.pending.recorded = true
            ids += sending.pending.ids
        }
        for index in waiting.indices where !waiting[index].recorded {
            waiting[index].recorded = true
            ids += waiting[index].ids
        }
        return ids.isEmpty ? [] : [.record(.undelivered(ids))]
    }

    /// An answer for the bubble `serial`, which is not the one with the service: no executor
    /// sends one (each bubble's call answers once, and the next bubble goes out only after the
    /// answer), so the state is left as it is and the answer said.
    func unexpected(answerFor serial: Int) -> [Action] {
        let with = state.sending.map { "#\($0.pending.serial) is" } ?? "none of ours is"
        let message = "desktop: an answer for notification #\(serial) came while \(with) with the service; ignored"
        if stopsOnImpossible { assertionFailure(message) }
        return [.log(.warning, message)]
    }
}
