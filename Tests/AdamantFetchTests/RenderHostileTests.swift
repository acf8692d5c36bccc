import AdamantCore
import AdamantFetch
import Testing

/// Rich plaintexts a hostile sender writes: too deep, too large, wrong types, tricks.
@Suite("Render: hostile rich messages")
struct RenderHostileTests {
    /// A debug build on a shared two-core machine; linear work takes milliseconds.
    static let quickly = Duration.seconds(2)

    @Test(arguments: [
        HostileSample("100,000 arrays", String(repeating: "[", count: 100_000)),
        HostileSample("100,000 objects", String(repeating: #"{"a":"#, count: 100_000)),
        // Under the size bound, so only the depth bound refuses them.
        HostileSample(
            "60,000 arrays, some closed", String(repeating: "[", count: 60_000) + String(repeating: "]", count: 5_000)),
        HostileSample(
            "a reply 50,000 deep", #"{"replyto_id":"1","reply_message":"# + String(repeating: "[", count: 50_000)),
    ])
    func deepNestingIsRefusedQuickly(_ sample: HostileSample) {
        let started = ContinuousClock.now
        #expect(Fixture.richBody(sample.text) == Fixture.unreadable)
        #expect(ContinuousClock.now - started < Self.quickly)
    }

    @Test func nestingUpToTheBoundIsRead() {
        func reply(previewDepth: Int) -> String {
            // The reply, its files entry's object and array add 4 levels to the preview's.
            let preview = String(repeating: "[", count: previewDepth) + String(repeating: "]", count: previewDepth)
            return #"{"replyto_id":"1","reply_message":{"files":[{"name":"a.png","preview":"# + preview + "}]}}"
        }
        #expect(Fixture.richBody(reply(previewDepth: 28)) == "📸")
        #expect(Fixture.richBody(reply(previewDepth: 29)) == Fixture.unreadable)
    }

    @Test func aMegabyteTextFallbackIsRefusedWhole() {
        let plaintext = #"{"type":"poll","text_fallback":""# + String(repeating: "x", count: 1_000_000) + #""}"#
        let started = ContinuousClock.now
        #expect(Fixture.richBody(plaintext) == Fixture.unreadable)
        #expect(ContinuousClock.now - started < Self.quickly)
    }

    @Test func aMegabyteTextIsCutQuickly() {
        let started = ContinuousClock.now
        let body = NotificationRenderer.render(Fixture.text(String(repeating: "ab\n", count: 350_000)), title: "Alice")
            .body
        #expect(ContinuousClock.now - started < Self.quickly)
        // The cut lands on a line break, which goes, so one character short of the limit.
        #expect(body == String(repeating: "ab↵ ", count: 124) + "ab…")
    }

    @Test func aLongCommentIsCutToTheBodyLimit() {
        let comment = String(repeating: "word ", count: 2_000)
        let body = Fixture.richBody(#"{"type":"eth_transaction","amount":"0.002","comments":""# + comment + #""}"#)
        #expect(body.count == NotificationRenderer.bodyLimit)
        #expect(body.hasPrefix("Sent you 0.002 ETH: word word"))
        #expect(body.hasSuffix("word…"))
    }

    @Test(arguments: [
        #"{"amount":{"value":"1"}"#, #"{"amount":["1"]"#, #"{"amount":true"#, #"{"amount":null"#, #"{"#,
        #"{"amount":"-1""#, #"{"amount":-1"#, #"{"amount":"1e3""#, #"{"amount":1E3"#, #"{"amount":"1,5""#,
        #"{"amount":"1.5.1""#,
        #"{"amount":"""#, #"{"amount":".5""#, #"{"amount":"5.""#, #"{"amount":" 5""#, #"{"amount":"0x10""#,
        #"{"amount":"５""#,
        #"{"amount":"1\u202e0""#, #"{"amount":"1234567890123456789012345678901234567890.5""#, #"{"amount":"NaN""#,
    ])
    func aMalformedCryptoAmountIsNeverShown(_ amountPart: String) {
        let separator = amountPart == "{" ? "" : ","
        let plaintext = amountPart + separator + #""type":"eth_transaction","hash":"0x1","text_fallback":"fallback"}"#
        #expect(Fixture.richBody(plaintext) == "fallback")
        #expect(Fixture.richKind(plaintext) == .unknown)
    }

    @Test(arguments: [
        #"{"type":"_transaction","amount":"1"}"#,
        #"{"type":"eth_transactions","amount":"1"}"#,
        #"{"type":"e th_transaction","amount":"1"}"#,
        #"{"type":"eth\u202e_transaction","amount":"1"}"#,
        #"{"type":"ＥＴＨ_transaction","amount":"1"}"#,
        #"{"type":"averyveryverylongcoinname_transaction","amount":"1"}"#,
        #"{"type":"ADM_TRANSACTION","amount":"1"}"#,
        #"{"type":42,"amount":"1"}"#,
        #"{"type":["eth_transaction"],"amount":"1"}"#,
    ])
    func aMalformedTickerIsNoCryptoTransfer(_ plaintext: String) {
        #expect(Fixture.richKind(plaintext) == .unknown)
        #expect(Fixture.richBody(plaintext) == Fixture.unreadable)
    }

    @Test(arguments: [
        #"{"files":{"name":"a.png"},"text_fallback":"fallback"}"#,
        #"{"files":"a.png","text_fallback":"fallback"}"#,
        #"{"files":[],"text_fallback":"fallback"}"#,
        #"{"files":[1,"a.png",null,[{}],true],"text_fallback":"fallback"}"#,
        #"{"replyto_id":"1","reply_message":42,"text_fallback":"fallback"}"#,
        #"{"replyto_id":"1","reply_message":["text"],"text_fallback":"fallback"}"#,
        #"{"replyto_id":"1","reply_message":null,"text_fallback":"fallback"}"#,
        #"{"replyto_id":"1","reply_message":true,"text_fallback":"fallback"}"#,
        #"{"replyto_id":"1","text_fallback":"fallback"}"#,
        #"{"replyto_id":"1","reply_message":{"type":"poll"},"text_fallback":"fallback"}"#,
        #"{"reactto_id":"1","react_message":42,"text_fallback":"fallback"}"#,
        #"{"reactto_id":"1","react_message":{"emoji":"👍"},"text_fallback":"fallback"}"#,
        #"{"reactto_id":"1","text_fallback":"fallback"}"#,
    ])
    func aWrongTypeMakesTheShapeUnknown(_ plaintext: String) {
        #expect(Fixture.richKind(plaintext) == .unknown)
        #expect(Fixture.richBody(plaintext) == "fallback")
    }

    @Test func aWrongTypedTextFallbackIsNotShown() {
        #expect(Fixture.richBody(#"{"type":"poll","text_fallback":42}"#) == Fixture.unreadable)
        #expect(Fixture.richBody(#"{"type":"poll","text_fallback":["a"]}"#) == Fixture.unreadable)
        #expect(Fixture.richBody(#"{"type":"poll","text_fallback":" \u0000\u202e "}"#) == Fixture.unreadable)
    }

    @Test func aNestedFallbackComesBeforeTheReplysOwn() {
        #expect(
            Fixture.richBody(
                #"{"replyto_id":"1","reply_message":{"type":"poll","text_fallback":"inner"},"text_fallback":"outer"}"#)
                == "inner")
    }

    @Test func wrongTypedOptionalPartsAreLeftOut() {
        #expect(Fixture.richBody(#"{"type":"eth_transaction","amount":"1","comments":{"x":1}}"#) == "Sent you 1 ETH")
        #expect(Fixture.richBody(#"{"files":[{"mimeType":7,"extension":["png"],"name":null}],"comment":5}"#) == "📄")
        #expect(Fixture.richBody(#"{"files":[1,{"mimeType":"IMAGE/PNG"}]}"#) == "📸")
    }

    @Test func theLastOfDuplicateKeysWins() {
        #expect(
            Fixture.richBody(#"{"type":"poll","type":"eth_transaction","amount":"9","amount":"1"}"#) == "Sent you 1 ETH"
        )
        #expect(Fixture.richBody(#"{"reactto_id":"1","react_message":"👍","react_message":"🔥"}"#) == "Reacted 🔥")
        #expect(Fixture.richBody(#"{"type":"eth_transaction","amount":"1","type":"poll"}"#) == Fixture.unreadable)
    }

    @Test func unknownKeysAreIgnored() {
        let plaintext = #"{"type":"eth_transaction","amount":"1","hash":"x","x":{"y":[1,2,{"z":null}]},"__proto__":{}}"#
        #expect(Fixture.richBody(plaintext) == "Sent you 1 ETH")
    }

    @Test func aReactionWinsOverEveryOtherShape() {
        let plaintext =
            #"{"reactto_id":"1","react_message":"👍","replyto_id":"2","reply_message":"x","files":[{}],"type":"eth_transaction","amount":"1"}"#
        #expect(Fixture.richBody(plaintext) == "Reacted 👍")
    }

    @Test func aLongReactionIsCut() {
        #expect(Fixture.richBody(#"{"reactto_id":"1","react_message":"Call +1 555 0100 now"}"#) == "Reacted Call +1…")
        #expect(Fixture.richBody(#"{"reactto_id":"1","react_message":"\u202e\u0000"}"#) == "Reacted")
    }

    @Test(arguments: [
        "{}", "[]", #"[{"type":"eth_transaction","amount":"1"}]"#, #""text""#, "42", "true", "null", "",
        "{", #"{"a":}"#, "{} x", #"{"a":1,}"#, "{'a':1}", #"{"a":"\x"}"#, "\u{FEFF}{}",
        "{\"a\":\"raw tab\u{09}in a string\"}",
    ])
    func aPlaintextThatIsNoUsableObjectIsUnknown(_ plaintext: String) {
        #expect(Fixture.richKind(plaintext) == .unknown)
        #expect(Fixture.richBody(plaintext) == Fixture.unreadable)
    }

    @Test func extremeADMAmountsDoNotTrap() {
        #expect(
            NotificationRenderer.render(Fixture.transfer(.max), title: "A").body == "Sent you 92233720368.54775807 ADM")
        #expect(NotificationRenderer.render(Fixture.transfer(.min), title: "A").body == "New transfer")
        #expect(
            NotificationRenderer.render(Fixture.text("hi", amount: .min), title: "A")
                == RenderedNotification(kind: .message, title: "A", body: "hi"))
    }
}
