import AdamantCore
import Testing

@Suite struct NodeVersionTests {
    @Test(arguments: [("0.10.3", "0.10.3"), ("v0.8.3", "0.8.3"), ("0.10.0-rc1", "0.10.0"), ("1.2", "1.2.0")])
    func parses(text: String, expected: String) {
        #expect(NodeVersion(text)?.description == expected)
    }

    @Test(arguments: ["", "x", "0.a.1", "1.2.3.4", "-1.0.0"])
    func refuses(text: String) {
        #expect(NodeVersion(text) == nil)
    }

    @Test func comparesNumerically() {
        #expect(NodeVersion(0, 9, 0) < NodeVersion(0, 10, 0))
        #expect(NodeVersion(0, 7, 9) < .minimumSupported)
        #expect(NodeVersion(0, 8, 0) >= .minimumSupported)
    }

    @Test func timestampRulesChangeAt010() {
        #expect(NodeVersion(0, 9, 9).timestampPolicy == .v0_9)
        #expect(NodeVersion(0, 10, 0).timestampPolicy == .v0_10)
        #expect(NodeVersion.current.timestampPolicy == .v0_10)
    }
}
