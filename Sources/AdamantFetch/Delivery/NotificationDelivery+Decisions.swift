import AdamantCore
import AdamantNodes

/// What comes in: a notification, decided by the policy and queued for the service, held for
/// the summary of quiet hours, or let go; and what the user does to a chat's bubble.
extension NotificationDelivery {
    mutating func found(_ notification: WatchNotification, at now: Moment) -> [Action] {
        switch configuration.policy.decide(
            notification.result.notification, in: ChatBubbles.Chat(of: notification), unixMillis: now.unixMillis,
            minute: now.minuteOfDay, wording: configuration.wording)
        {
        case .drop:
            return [.log(.info, "watch: not shown: muted, or a kind not asked for")]
        case .show(let presentation):
            let shown = presentation.applied(to: notification)
            return [.show(shown)] + (configuration.desktop ? enqueue(shown, as: presentation, recorded: false) : [])
        case .hold(var presentation):
            let shown = presentation.applied(to: notification)
            guard configuration.desktop else { return [.show(shown)] }
            guard configuration.stays else {
                // Nothing stays to show a summary later: quiet now instead.
                (presentation.urgency, presentation.silent) = (.low, true)
                return [.show(shown)] + enqueue(shown, as: presentation, recorded: false)
            }
            hold(notification)
            return [
                .show(shown), .record(.undelivered([notification.result.id])),
                .log(.info, "desktop: held for the summary when the quiet hours end"),
            ]
        }
    }

    /// One an earlier process did not put on the desktop: shown there as the policy says now,
    /// held again if still quiet, else let go.
    mutating func missed(_ notification: WatchNotification, at now: Moment) -> [Action] {
        guard configuration.desktop, notification.result.failure == nil else {
            return [.record(.delivered([notification.result.id]))]
        }
        switch configuration.policy.decide(
            notification.result.notification, in: ChatBubbles.Chat(of: notification), unixMillis: now.unixMillis,
            minute: now.minuteOfDay, wording: configuration.wording)
        {
        case .show(let presentation):
            return enqueue(presentation.applied(to: notification), as: presentation, recorded: true)
        case .hold where configuration.stays:
            hold(notification)
            return []
        case .hold, .drop:
            return [.record(.delivered([notification.result.id]))]
        }
    }

    mutating func hold(_ notification: WatchNotification) {
        held.ids.append(notification.result.id)
        held.chats.insert(ChatBubbles.Chat(of: notification))
    }

    /// One bubble for what was held ("5 notifications in 3 chats while quiet"); it names no
    /// chat and quotes nothing, whatever the preview.
    mutating func releaseHeld() -> [Action] {
        let (ids, chats) = held
        held = ([], [])
        let wording = configuration.wording
        let summary = NotificationPolicy.Presentation(
            title: configuration.appName,
            body: wording.text(
                .quietSummary, wording.counted(.notifications, ids.count), wording.counted(.inChats, chats.count)),
            showsText: false, urgency: .normal, silent: false)
        waiting.append(
            Pending(
                serial: nextSerial(), chat: nil, isTransfer: false, presentation: summary, sentAt: .max, ids: ids,
                recorded: true))
        return []
    }

    mutating func enqueue(
        _ notification: WatchNotification, as presentation: NotificationPolicy.Presentation, recorded: Bool
    ) -> [Action] {
        let kind = notification.result.notification.kind
        var presentation = presentation
        if let label = configuration.accountLabels[notification.account] {
            let wording = configuration.wording
            presentation.title += " · " + (wording.isRightToLeft ? "\u{2068}\(label)\u{2069}" : label)
        }
        // Without a transaction (a fallback), it counts as sent now.
        let sentAt = notification.result.transaction.map { $0.timestampMs ?? Int64($0.timestamp) * 1000 } ?? .max
        waiting.append(
            Pending(
                serial: nextSerial(), chat: ChatBubbles.Chat(of: notification),
                isTransfer: kind == .transfer || kind == .cryptoTransfer, presentation: presentation, sentAt: sentAt,
                ids: [notification.result.id], recorded: recorded))
        var actions: [Action] = []
        // The bubble with the service counts too; the oldest of the others goes.
        while waiting.count + (state.sending == nil ? 0 : 1) > Self.maximumWaiting {
            let dropped = waiting.removeFirst()
            if !dropped.recorded { actions.append(.record(.undelivered(dropped.ids))) }
        }
        // A service that went away is asked again at the next notification.
        return actions + next()
    }

    /// The user picked `action` on the bubble `id`; a bubble not known is another account's.
    mutating func invoked(_ id: UInt32, _ action: BubbleAction, at now: Moment) -> [Action] {
        guard let chat = bubbles.chat(shownAs: id) else { return [] }
        bubbles.seen(chat)
        switch action {
        case .click, .open:
            return [.open(chat)]
        case .mute:
            let until = now.unixMillis + Self.muteSpan
            configuration.policy.mutedChats[chat] = until
            return [
                .record(.muted(chat, until: until)),
                .log(.info, "watch: \(chat.partner) muted until \(UTCTime.text(unixMillis: until))"),
            ]
        }
    }

    mutating func nextSerial() -> Int {
        serials += 1
        return serials
    }
}
