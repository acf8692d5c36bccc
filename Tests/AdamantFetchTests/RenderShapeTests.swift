import AdamantCore
import AdamantFetch
import Testing

/// Every shape of docs/protocol.md §6.4 and §8 and docs/clients.md §2.4, in both directions.
@Suite("Render: every shape")
struct RenderShapeTests {
    static let ethTransfer =
        #"{"type":"eth_transaction","amount":"0.002","hash":"0xfa46","comments":"for lunch","text_fallback":"Sent 0.002 ETH"}"#
    static let threePhotosAndADocument = #"""
        {"files":[{"id":"Qm1","size":10,"nonce":"aa","name":"a.jpg","extension":"jpg","mimeType":"image/jpeg","preview":{"id":"Qm2","nonce":"bb","extension":"jpg"},"resolution":[640,480]},
        {"id":"Qm3","name":"b","extension":"png"},{"id":"Qm4","name":"clip.mp4","mimeType":"video/mp4","duration":12},
        {"id":"Qm5","name":"report.pdf","extension":"pdf","mimeType":"application/pdf"}],"storage":{"id":"ipfs"},"comment":"**holiday**"}
        """#

    static let cases: [RenderCase] = {
        let incoming: [(RenderCase, String)] = [
            (
                RenderCase(
                    name: "type 0 transfer", content: Fixture.transfer(Fixture.oneAndAHalfADM), kind: .transfer,
                    body: "Sent you 1.5 ADM"),
                "You sent 1.5 ADM"
            ),
            (
                RenderCase(
                    name: "type 0 transfer of one unit", content: Fixture.transfer(1), kind: .transfer,
                    body: "Sent you 0.00000001 ADM"),
                "You sent 0.00000001 ADM"
            ),
            (
                RenderCase(
                    name: "chat 1 text", content: Fixture.text("Hello there"), kind: .message, body: "Hello there"),
                "You: Hello there"
            ),
            (
                RenderCase(
                    name: "chat 0 legacy text", content: Fixture.text("Old times", chatType: .legacy), kind: .message,
                    body: "Old times"),
                "You: Old times"
            ),
            (
                RenderCase(
                    name: "chat 1 Markdown and lines",
                    content: Fixture.text("# Plan\n**Meet** at _noon_\n- bring `snacks`"),
                    kind: .message, body: "Plan↵ Meet at noon↵ bring `snacks`"),
                "You: Plan↵ Meet at noon↵ bring `snacks`"
            ),
            (
                RenderCase(
                    name: "chat 1 empty text", content: Fixture.text(""), kind: .message, body: "Sent an empty message"),
                "You sent an empty message"
            ),
            (
                RenderCase(
                    name: "chat 1 with an amount: transfer with comment",
                    content: Fixture.text("thanks", amount: Fixture.oneAndAHalfADM), kind: .transfer,
                    body: "Sent you 1.5 ADM: thanks"),
                "You sent 1.5 ADM: thanks"
            ),
            (
                RenderCase(
                    name: "chat 0 with an amount",
                    content: Fixture.text("old *comment*", chatType: .legacy, amount: 100_000_000),
                    kind: .transfer, body: "Sent you 1 ADM: old comment"),
                "You sent 1 ADM: old comment"
            ),
            (
                RenderCase(
                    name: "chat 1 with an amount and no comment", content: Fixture.text(" \n ", amount: 49_000_000),
                    kind: .transfer, body: "Sent you 0.49 ADM"),
                "You sent 0.49 ADM"
            ),
            (
                RenderCase(
                    name: "AIP-12 ETH transfer", content: Fixture.rich(ethTransfer), kind: .cryptoTransfer,
                    body: "Sent you 0.002 ETH: for lunch"),
                "You sent 0.002 ETH: for lunch"
            ),
            (
                RenderCase(
                    name: "AIP-12 without a comment",
                    content: Fixture.rich(#"{"type":"btc_transaction","amount":"0.0001","hash":"ab"}"#),
                    kind: .cryptoTransfer, body: "Sent you 0.0001 BTC"),
                "You sent 0.0001 BTC"
            ),
            (
                RenderCase(
                    name: "AIP-12 amount as a number",
                    content: Fixture.rich(#"{"type":"doge_transaction","amount":12.5,"hash":"x"}"#),
                    kind: .cryptoTransfer, body: "Sent you 12.5 DOGE"),
                "You sent 12.5 DOGE"
            ),
            (
                RenderCase(
                    name: "AIP-12 type in capitals",
                    content: Fixture.rich(#"{"type":"USDT_Transaction","amount":"25","hash":"x"}"#),
                    kind: .cryptoTransfer, body: "Sent you 25 USDT"),
                "You sent 25 USDT"
            ),
            (
                RenderCase(
                    name: "AIP-12 a coin no client knows yet",
                    content: Fixture.rich(
                        #"{"type":"newcoin2_transaction","amount":"7.000","hash":"x","comments":""}"#),
                    kind: .cryptoTransfer, body: "Sent you 7.000 NEWCOIN2"),
                "You sent 7.000 NEWCOIN2"
            ),
            (
                RenderCase(
                    name: "AIP-16 text reply",
                    content: Fixture.rich(
                        #"{"replyto_id":"16214962152767034408","reply_message":"Sure, **see** you"}"#),
                    kind: .reply, body: "Sure, see you"),
                "You: Sure, see you"
            ),
            (
                RenderCase(
                    name: "AIP-16 reply id as a number",
                    content: Fixture.rich(#"{"replyto_id":1234,"reply_message":"ok"}"#),
                    kind: .reply, body: "ok"),
                "You: ok"
            ),
            (
                RenderCase(
                    name: "AIP-16 ADM transfer reply",
                    content: Fixture.rich(
                        #"{"replyto_id":"1","reply_message":"for the *tickets*"}"#, amount: Fixture.oneAndAHalfADM),
                    kind: .transfer, body: "Sent you 1.5 ADM: for the tickets"),
                "You sent 1.5 ADM: for the tickets"
            ),
            (
                RenderCase(
                    name: "AIP-16 ADM transfer reply without a comment",
                    content: Fixture.rich(#"{"replyto_id":"1","reply_message":""}"#, amount: 1_000_000_000),
                    kind: .transfer, body: "Sent you 10 ADM"),
                "You sent 10 ADM"
            ),
            (
                RenderCase(
                    name: "AIP-16 crypto transfer reply",
                    content: Fixture.rich(
                        #"{"replyto_id":"1","reply_message":{"type":"eth_transaction","amount":"0.5","hash":"0x1","comments":"back"}}"#
                    ),
                    kind: .cryptoTransfer, body: "Sent you 0.5 ETH: back"),
                "You sent 0.5 ETH: back"
            ),
            (
                RenderCase(
                    name: "AIP-16 crypto reply with nested numbers (N6)",
                    content: Fixture.rich(
                        #"{"replyto_id":1,"reply_message":{"type":"kly_transaction","amount":0.5,"hash":"0x1","timestamp":1700000000,"fee":0.001}}"#
                    ),
                    kind: .cryptoTransfer, body: "Sent you 0.5 KLY"),
                "You sent 0.5 KLY"
            ),
            (
                RenderCase(
                    name: "AIP-16 file reply",
                    content: Fixture.rich(
                        #"{"replyto_id":"1","reply_message":{"files":[{"id":"Qm","mimeType":"image/heic"}],"storage":{"id":"ipfs"},"comment":"look"}}"#
                    ),
                    kind: .file, body: "📸 look"),
                "You: 📸 look"
            ),
            (
                RenderCase(
                    name: "AIP-17 reaction", content: Fixture.rich(#"{"reactto_id":"1","react_message":"👍"}"#),
                    kind: .reaction, body: "Reacted 👍"),
                "You reacted 👍"
            ),
            (
                RenderCase(
                    name: "AIP-17 removed reaction", content: Fixture.rich(#"{"reactto_id":"1","react_message":""}"#),
                    kind: .reaction, body: "Removed a reaction"),
                "You removed a reaction"
            ),
            (
                RenderCase(
                    name: "AIP-18 photos, a video and a document", content: Fixture.rich(threePhotosAndADocument),
                    kind: .file, body: "📸3 📄 holiday"),
                "You: 📸3 📄 holiday"
            ),
            (
                RenderCase(
                    name: "AIP-18 one document",
                    content: Fixture.rich(#"{"files":[{"id":"Qm","name":"a.PDF"}],"storage":{"id":"ipfs"}}"#),
                    kind: .file, body: "📄"),
                "You: 📄"
            ),
            (
                RenderCase(
                    name: "AIP-18 two documents and a photo by name",
                    content: Fixture.rich(
                        #"{"files":[{"name":"x.zip"},{"extension":"docx"},{"name":"IMG.JPEG"}],"comment":""}"#),
                    kind: .file, body: "📸 📄2"),
                "You: 📸 📄2"
            ),
            (
                RenderCase(
                    name: "unknown rich type with text_fallback (N5)",
                    content: Fixture.rich(
                        #"{"type":"poll","options":["yes","no"],"text_fallback":"**Poll**: yes or no?"}"#),
                    kind: .unknown, body: "Poll: yes or no?"),
                "You: Poll: yes or no?"
            ),
            (
                RenderCase(
                    name: "AIP-12 with a malformed amount shows its text_fallback",
                    content: Fixture.rich(#"{"type":"eth_transaction","amount":"1e3","text_fallback":"ETH transfer"}"#),
                    kind: .unknown, body: "ETH transfer"),
                "You: ETH transfer"
            ),
            (
                RenderCase(
                    name: "adm_transaction claims no ADM",
                    content: Fixture.rich(
                        #"{"type":"adm_transaction","amount":"1000","text_fallback":"I sent you 1000 ADM"}"#),
                    kind: .unknown, body: "I sent you 1000 ADM"),
                "You: I sent you 1000 ADM"
            ),
            (
                RenderCase(
                    name: "unknown rich type without text_fallback", content: Fixture.rich(#"{"type":"poll"}"#),
                    kind: .unknown, body: Fixture.unreadable),
                "You sent a message this app cannot show"
            ),
            (
                RenderCase(
                    name: "rich plaintext that is not JSON", content: Fixture.rich("hello"), kind: .unknown,
                    body: Fixture.unreadable),
                "You sent a message this app cannot show"
            ),
            (
                RenderCase(
                    name: "rich message with an ADM amount and no reply",
                    content: Fixture.rich(#"{"type":"eth_transaction","amount":"99","hash":"x"}"#, amount: 200_000_000),
                    kind: .transfer, body: "Sent you 2 ADM"),
                "You sent 2 ADM"
            ),
            (
                RenderCase(
                    name: "signal",
                    content: Fixture.text(#"{"token":"ab","provider":"apns","action":"add"}"#, chatType: .signal),
                    kind: .signal, body: "Sent a service signal", shown: false),
                "You sent a service signal"
            ),
            (
                RenderCase(
                    name: "signal that could not be read", content: Fixture.text(nil, chatType: .signal), kind: .signal,
                    body: "Sent a service signal", shown: false),
                "You sent a service signal"
            ),
            (
                RenderCase(
                    name: "chat that could not be read", content: Fixture.text(nil), kind: .message, body: "New message"
                ),
                "New message"
            ),
            (
                RenderCase(
                    name: "transfer with comment that could not be read", content: Fixture.text(nil, amount: 5),
                    kind: .transfer, body: "New transfer"),
                "New transfer"
            ),
            (
                RenderCase(
                    name: "rich message that could not be read", content: Fixture.rich(nil), kind: .message,
                    body: "New message"),
                "New message"
            ),
            (
                RenderCase(
                    name: "chat without a chat type",
                    content: MessageContent(type: .chat, chatType: nil, amount: 0, plaintext: "hi", incoming: true),
                    kind: .message, body: "New message"),
                "New message"
            ),
            (
                RenderCase(
                    name: "type 0 without an amount", content: Fixture.transfer(0), kind: .transfer,
                    body: "New transfer"),
                "New transfer"
            ),
            (
                RenderCase(
                    name: "KVS transaction",
                    content: MessageContent(type: .state, chatType: nil, amount: 0, plaintext: "x", incoming: true),
                    kind: .unknown, body: "New message"),
                "New message"
            ),
        ]
        return incoming.flatMap { row, outgoingBody in [row, row.sent(outgoingBody)] }
    }()

    @Test(arguments: cases)
    func shape(_ row: RenderCase) {
        row.check()
    }

    @Test func everyKindIsCovered() {
        let kinds = Set(Self.cases.map(\.kind))
        #expect(kinds == Set(NotificationKind.allCases))
    }

    @Test(arguments: [
        (TransactionType.transfer, Int64(0), NotificationKind.transfer, "New transfer"),
        (.transfer, 5, .transfer, "New transfer"),
        (.chat, 0, .message, "New message"),
        (.chat, 1, .transfer, "New transfer"),
        (.state, 0, .unknown, "New message"),
        (TransactionType(rawValue: 3), 0, .unknown, "New message"),
    ])
    func fallback(type: TransactionType, amount: Int64, kind: NotificationKind, body: String) {
        #expect(
            NotificationRenderer.fallback(type: type, amount: amount, title: "Bob")
                == RenderedNotification(kind: kind, title: "Bob", body: body))
    }

    @Test func fallbackWithoutAType() {
        #expect(
            NotificationRenderer.fallback(type: nil, amount: 0, title: "U1")
                == RenderedNotification(kind: .unknown, title: "U1", body: "New message"))
        #expect(
            NotificationRenderer.fallback(type: nil, amount: 1, title: "U1")
                == RenderedNotification(kind: .transfer, title: "U1", body: "New transfer"))
    }

    @Test func fallbackCleansItsTitle() {
        let notification = NotificationRenderer.fallback(type: .chat, amount: 0, title: "\u{202E}Mallory\n\u{0}")
        #expect(notification.title == "Mallory")
    }
}
