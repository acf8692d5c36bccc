import AdamantCore
import Testing

/// adamant-ns reads its four-field schema strictly and drops anything else, so adm-push must
/// read its own signals back the same way: a signal the service dropped registered nothing.
@Suite("Service grammars")
struct ServiceKindTests {
    static let device = "0123456789abcdef0123456789abcdef"
    static let token = "fcm-token-" + String(repeating: "x", count: 20)

    @Test(arguments: [
        #"{"deviceId":"d1","token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM","action":"add"}"#,
        // Any key order, extra keys, whitespace.
        #"{ "action": "remove", "provider": "FCM", "token": "fcm-token-xxxxxxxxxxxxxxxxxxxx", "deviceId": "d1", "x": 1 }"#,
    ])
    func adamantNSReadsItsSchema(_ text: String) throws {
        let signal = try ServiceKind.ns.signal(plaintext: text)
        #expect(signal.deviceId == "d1" && signal.provider == .fcm && signal.token == Self.token)
    }

    @Test(arguments: [
        (
            #"{"deviceId":"d1","token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"fcm","action":"add"}"#,
            "unknownProvider"
        ),
        (
            #"{"deviceId":"d1","token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM","action":"Add"}"#,
            "unknownAction"
        ),
        (#"{"token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM","action":"add"}"#, "notASignal"),
        (#"{"deviceId":7,"token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM","action":"add"}"#, "notASignal"),
        (#"{"deviceId":"d1","token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM"}"#, "notASignal"),
        (#"{"deviceId":"d1","token":"ab","provider":"APNS","action":"add"}"#, "invalidAPNsToken"),
    ])
    func adamantNSDropsAnythingElse(_ text: String, _ kind: String) {
        do {
            _ = try ServiceKind.ns.signal(plaintext: text)
            Issue.record("accepted: \(text)")
        } catch { #expect(error.kind == kind) }
    }

    @Test func theANSGrammarIsLenientWhereTheCSharpServiceIs() throws {
        // What adamant-ns drops, the C# service takes: case-insensitive, no device id needed.
        let text = #"{"token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM","action":"ADD"}"#
        #expect(try ServiceKind.ans.signal(plaintext: text).provider == .fcm)
        #expect(throws: SignalError.self) { try ServiceKind.ns.signal(plaintext: text) }
    }

    @Test func eachGrammarWritesWhatItReads() throws {
        let signal = try PushSignal(token: Self.token, provider: .fcm, action: .remove, deviceId: Self.device)
        for kind in ServiceKind.allCases {
            #expect(try kind.signal(plaintext: kind.plaintext(signal)) == signal, "\(kind)")
        }
        #expect(
            ServiceKind.ns.plaintext(signal)
                == #"{"deviceId":"0123456789abcdef0123456789abcdef","token":"fcm-token-xxxxxxxxxxxxxxxxxxxx","provider":"FCM","action":"remove"}"#
        )
    }

    @Test func adamantNSNeedsADeviceAndNoSandbox() throws {
        let service = NotificationService.adamantNS
        #expect(service.address.description == "U922832474468487910" && service.kind == .ns)
        #expect(service.publicKey.address == service.address)
        let bare = try PushSignal(token: Self.token, provider: .fcm, action: .add)
        #expect(throws: SignalError.deviceIDRequired) { try service.check(bare) }
        let sandbox = try PushSignal(
            token: String(repeating: "ab", count: 32), provider: .apnsSandbox, action: .add, deviceId: Self.device)
        #expect(throws: SignalError.providerNotTaken(.apnsSandbox, .ns)) { try service.check(sandbox) }
        #expect(throws: Never.self) { try NotificationService.adamantIOS.check(sandbox) }
        let random = PushSignal.randomDeviceID()
        #expect(random.utf8.count == 32 && Hex.decode(random) != nil && random != PushSignal.randomDeviceID())
    }
}
