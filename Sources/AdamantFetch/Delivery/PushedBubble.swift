extension NotificationDelivery {
    /// The bubbles of one pushed notification, shown by a process that does not stay (`adm-fetch
    /// TXN --notify`): no actions, since nobody is left to hear a click; one quiet hours would
    /// hold shown at once, quietly; and none for a push seen before, which had its bubble then.
    public static func bubbles(
        ofPushed notification: WatchNotification, policy: NotificationPolicy, at moment: Moment,
        wording: Wording = .english
    ) -> [Bubble] {
        guard !notification.result.duplicate else { return [] }
        var configuration = Configuration(policy: policy, desktop: true, stays: false)
        configuration.wording = wording
        var delivery = NotificationDelivery(configuration)
        return delivery.handle(.found(notification), at: moment).compactMap {
            if case .notify(let bubble) = $0 { bubble } else { nil }
        }
    }
}
