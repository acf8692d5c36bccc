import AdamantCore
import Testing

@testable import AdamantFetch

/// One input to the renderer and the exact notification it must give.
struct RenderCase: Sendable, CustomTestStringConvertible {
    let name: String
    let content: MessageContent
    var title = "Alice"
    let kind: NotificationKind
    let body: String
    var shown = true

    var testDescription: String { "\(name) (\(content.incoming ? "incoming" : "outgoing"))" }

    /// The same case seen from the other direction, with that direction's body.
    func sent(_ body: String) -> RenderCase {
        var outgoing = content
        outgoing.incoming = false
        return RenderCase(name: name, content: outgoing, title: title, kind: kind, body: body, shown: shown)
    }

    func check() {
        let notification = NotificationRenderer.render(content, title: title)
        #expect(notification == RenderedNotification(kind: kind, title: title, body: body, shown: shown))
    }
}

enum Fixture {
    static let oneAndAHalfADM: Int64 = 150_000_000

    static func text(_ plaintext: String?, chatType: ChatType = .message, amount: Int64 = 0, incoming: Bool = true)
        -> MessageContent
    {
        MessageContent(type: .chat, chatType: chatType, amount: amount, plaintext: plaintext, incoming: incoming)
    }

    static func rich(_ plaintext: String?, amount: Int64 = 0, incoming: Bool = true) -> MessageContent {
        text(plaintext, chatType: .rich, amount: amount, incoming: incoming)
    }

    static func transfer(_ amount: Int64, incoming: Bool = true) -> MessageContent {
        MessageContent(type: .transfer, chatType: nil, amount: amount, plaintext: nil, incoming: incoming)
    }

    /// The body of a rich message from this plaintext, incoming, with no ADM amount.
    static func richBody(_ plaintext: String) -> String {
        NotificationRenderer.render(rich(plaintext), title: "Alice").body
    }

    static func richKind(_ plaintext: String) -> NotificationKind {
        NotificationRenderer.render(rich(plaintext), title: "Alice").kind
    }

    static let unreadable = "Sent a message this app cannot show"
}

/// Scalars no notification may show: controls, format characters but the joiners, line and
/// paragraph separators. Written apart from `NotificationText` so a mistake there shows here.
func hiddenScalars(in text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { scalar in
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        case .format: scalar != "\u{200C}" && scalar != "\u{200D}"
        default: false
        }
    }
}

/// A large hostile input with a short name, so test logs show the name rather than the input.
struct HostileSample: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let text: String
    /// What a function under test must make of it, when it says; nil for the text unchanged.
    let expected: String?

    init(_ name: String, _ text: String, expected: String? = nil) {
        testDescription = name
        self.text = text
        self.expected = expected
    }
}
