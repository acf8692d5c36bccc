import AdamantFetch

/// How a notification becomes a bubble: the hints, the actions, the body's markup.
extension DesktopNotifier {
    /// The bubble for `presentation`, within what `server` can show. Only the body is markup
    /// (the specification's summary is plain text, and servers show it as such).
    static func bubble(
        for presentation: NotificationPolicy.Presentation, count: String?, server: NotificationServer,
        appearance: Appearance, actions chatActions: Bool = true
    ) -> DesktopBubble {
        let markup = server.capabilities.contains("body-markup")
        let text = markup ? escapingMarkup(presentation.body) : presentation.body
        var hints = DesktopBubble.Hints()
        hints.category = "im.received"
        hints.desktopEntry = appearance.desktopEntry
        hints.soundName = appearance.soundName
        hints.urgency = presentation.urgency
        hints.suppressSound = presentation.silent
        let actions: [DesktopBubble.Action] =
            chatActions && server.capabilities.contains("actions")
            ? BubbleAction.allCases.map { .init(key: $0.rawValue, label: label(of: $0, appearance.wording)) }
            : []
        return DesktopBubble(
            appName: appearance.appName, icon: appearance.icon, summary: presentation.title,
            body: count.map { $0 + "\n" + text } ?? text, actions: actions, hints: hints)
    }

    /// What the button of `action` says: a click and "Open" do the same, and a server that
    /// shows the click as a button too says "Open" on it.
    static func label(of action: BubbleAction, _ wording: Wording) -> String {
        switch action {
        case .click, .open: wording.openAction
        case .mute: wording.muteAction
        }
    }

    /// The body with `&`, `<` and `>` escaped, so a server that reads markup shows it as
    /// the text it is (`<b>`, `<a href>`, `<img src>` included) and fetches nothing.
    static func escapingMarkup(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
