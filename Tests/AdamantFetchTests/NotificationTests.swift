import AdamantFetch
import Testing

@Suite("Notification model")
struct NotificationModelTests {
    @Test func kindsAreNamedAsTheJSONNamesThem() {
        #expect(
            NotificationKind.allCases.map(\.rawValue) == [
                "message", "transfer", "cryptoTransfer", "reaction", "reply", "file", "signal", "unknown",
            ])
    }
}
