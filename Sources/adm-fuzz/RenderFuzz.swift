import AdamantCore
import AdamantFetch

/// The notification renderer on hostile content: `selector ‖ plaintext [0x1F title]`.
///
/// The selector's bits 0–1 pick the transaction type (transfer, chat, chat, KVS), bits 2–4 the
/// chat type (legacy, message, rich, signal, none, rich, rich, message), bit 5 the direction,
/// bits 6–7 the ADM amount (0, 1.5 ADM, `Int64.max`, `Int64.min`). The plaintext is nil when it
/// is not valid UTF-8; the title is "U1" when no 0x1F separates one.
///
/// Invariants: no trap; body and title within their caps, not empty, one line, with no control,
/// format (the joiners aside) or separator characters; hidden (`shown == false`) exactly when
/// it is a signal; the same input renders the same.
enum RenderFuzz {
    static let types: [TransactionType] = [.transfer, .chat, .chat, .state]
    static let chatTypes: [ChatType?] = [.legacy, .message, .rich, .signal, nil, .rich, .rich, .message]
    static let amounts: [Int64] = [0, 150_000_000, .max, .min]
    /// 16 scalars of at most 4 bytes each, per character.
    static let bytesPerCharacter = 64

    static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let fields = data.dropFirst().split(separator: 0x1F, maxSplits: 1, omittingEmptySubsequences: false)
        let plaintext = fields.first.flatMap { String(validating: $0, as: UTF8.self) }
        let title = fields.count > 1 ? String(decoding: fields[1], as: UTF8.self) : "U1"
        let content = MessageContent(
            type: types[Int(selector & 0b11)],
            chatType: chatTypes[Int(selector >> 2 & 0b111)],
            amount: amounts[Int(selector >> 6)],
            plaintext: plaintext,
            incoming: selector & 0b10_0000 != 0
        )

        let notification = NotificationRenderer.render(content, title: title)
        check(notification, "render")
        invariant(
            notification.shown == (notification.kind != .signal),
            "shown is \(notification.shown) for a \(notification.kind)")
        invariant(NotificationRenderer.render(content, title: title) == notification, "two renderings differ")

        let fallback = NotificationRenderer.fallback(type: content.type, amount: content.amount, title: title)
        check(fallback, "fallback")
        invariant(
            fallback.shown && ["New message", "New transfer"].contains(fallback.body), "fallback says \(fallback.body)")
    }

    private static func check(_ notification: RenderedNotification, _ what: String) {
        for (name, text, limit) in [
            ("body", notification.body, NotificationRenderer.bodyLimit),
            ("title", notification.title, NotificationRenderer.titleLimit),
        ] {
            invariant(!text.isEmpty, "\(what): empty \(name)")
            invariant(text.count <= limit, "\(what): \(name) of \(text.count) characters")
            invariant(text.utf8.count <= limit * bytesPerCharacter, "\(what): \(name) of \(text.utf8.count) bytes")
            let hidden = text.unicodeScalars.filter(isHidden)
            invariant(hidden.isEmpty, "\(what): \(name) shows \(hidden.map { String($0.value, radix: 16) })")
        }
    }

    /// Written apart from the renderer's own rule, so one mistake cannot hide the other.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate: true
        case .format: scalar != "\u{200C}" && scalar != "\u{200D}"
        default: false
        }
    }
}
