import AdamantCLI
import AdamantCore
import Testing

/// `ADM_PASSPHRASE` is read once: the first read takes the bytes and wipes the memory that
/// held them, so a long-running process keeps no copy once its keys are derived.
@Suite("the passphrase variable")
struct PassphraseVariableTests {
    static let words = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    static func context(_ environment: [String: String]) -> Context {
        Context(environment: environment, output: Output(), terminal: Terminal())
    }

    @Test func theVariableIsNoOrdinaryVariable() {
        let context = Self.context(["ADM_PASSPHRASE": Self.words, "HOME": "/nonexistent"])
        #expect(context.environment["ADM_PASSPHRASE"] == nil)
        #expect(context.environment["HOME"] == "/nonexistent")
        #expect(context.passphraseVariable != nil)
    }

    @Test func aSecondReadIsRefusedRatherThanFallingThrough() throws {
        let context = Self.context(["ADM_PASSPHRASE": Self.words])
        let first = try #require(try PassphraseInput.given(file: nil, context))
        #expect(
            KeyPair(passphrase: first).address == KeyPair(passphrase: try Passphrase(validating: Self.words)).address)
        // Not nil, which a caller would take for "no passphrase given" and look elsewhere.
        #expect(throws: CLIError.self) { try PassphraseInput.given(file: nil, context) }
        let error = try #require(throws: CLIError.self) { try PassphraseInput.given(file: nil, context) }
        #expect(error.message.contains("ADM_PASSPHRASE was read already"))
    }

    @Test func withoutTheVariableNothingIsGiven() throws {
        #expect(try PassphraseInput.given(file: nil, Self.context([:])) == nil)
    }
}
