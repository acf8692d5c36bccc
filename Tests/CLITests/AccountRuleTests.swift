import AdamantCore
import Foundation
import KeyringTestSupport
import Testing

/// The one rule for which account a command acts on, followed by every command and by
/// `logout`: real processes against a real gnome-keyring on a private session bus.
@Suite("which account a command acts on", .timeLimit(.minutes(3)))
struct AccountRuleTests {
    let alice = BIP39.randomMnemonic()
    let bob = BIP39.randomMnemonic()

    static func push(_ keyring: TestKeyring, _ arguments: [String], _ extra: [String: String] = [:]) async throws
        -> RunResult
    {
        try await KeyringCommandTests.push(keyring, arguments, extra)
    }

    static func writeConfig(_ keyring: TestKeyring, _ json: String) throws {
        let folder = keyring.folder + "/config/adm-push"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try json.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
    }

    /// With only Alice's passphrase stored, a logout that ADM_ACCOUNT or the config file points
    /// at Bob removes nothing (exit 0, saying so); with both stored, it removes Bob's alone.
    @Test func logoutRemovesTheChosenAccountsPassphraseAndNothingElse() async throws {
        try await TestKeyring.with { keyring in
            let (a, b) = (try KeyringCommandTests.address(alice), try KeyringCommandTests.address(bob))
            #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice]).status == 0)
            let byVariable = try await Self.push(keyring, ["logout"], ["ADM_ACCOUNT": b])
            #expect(byVariable.status == 0 && byVariable.stdout.isEmpty, "\(byVariable.stderr)")
            #expect(byVariable.stderr.contains("no passphrase of \(b) (chosen by ADM_ACCOUNT)"), "\(byVariable.stderr)")
            #expect(try await keyring.secretTool(["lookup", "address", a]).stdout == alice)

            try Self.writeConfig(keyring, #"{"account": "\#(b)"}"#)
            let byFile = try await Self.push(keyring, ["logout"])
            #expect(byFile.status == 0 && byFile.stdout.isEmpty, "\(byFile.stderr)")
            #expect(try await keyring.secretTool(["lookup", "address", a]).stdout == alice)

            #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": bob]).status == 0)
            let both = try await Self.push(keyring, ["logout"])
            #expect(both.status == 0 && both.stdout == b + "\n", "\(both.stderr)")
            #expect(try await keyring.secretTool(["lookup", "address", a]).stdout == alice)
            #expect(try await keyring.secretTool(["lookup", "address", b]).status != 0)
        }
    }

    /// A passphrase given by the variable, a file or for a command with a chosen account that
    /// is not that account's is 64 naming both, and nothing is written: no home appears.
    @Test func aGivenPassphraseOfAnotherAccountIsRefusedNamingBoth() async throws {
        try await TestKeyring.with(gnomeKeyring: false) { keyring in
            let (a, b) = (try KeyringCommandTests.address(alice), try KeyringCommandTests.address(bob))
            let file = keyring.folder + "/home/passphrase"
            #expect(
                FileManager.default.createFile(
                    atPath: file, contents: Data(alice.utf8), attributes: [.posixPermissions: 0o600]))
            let home = keyring.folder + "/outbox"
            let cases: [([String], [String: String], String)] = [
                (["keys", "--account", b], ["ADM_PASSPHRASE": alice], "ADM_PASSPHRASE"),
                (["keys"], ["ADM_PASSPHRASE": alice, "ADM_ACCOUNT": b], "ADM_PASSPHRASE"),
                (["keys", "--passphrase-file", file, "--account", b], [:], "--passphrase-file"),
                (
                    ["register", "--home", home, "--token", String(repeating: "a", count: 64), "--provider", "apns"],
                    ["ADM_PASSPHRASE": alice, "ADM_ACCOUNT": b], "ADM_PASSPHRASE"
                ),
                (
                    ["unregister", "--all", "--home", home], ["ADM_PASSPHRASE": alice, "ADM_ACCOUNT": b],
                    "ADM_PASSPHRASE"
                ),
                (["repair", "--home", home], ["ADM_PASSPHRASE": alice, "ADM_ACCOUNT": b], "ADM_PASSPHRASE"),
            ]
            for (arguments, environment, source) in cases {
                let result = try await Self.push(keyring, arguments, environment)
                KeyringCommandTests.expectOneLine(
                    result, status: 64, starting: "the passphrase \(source) gave is \(a)'s, but ")
                #expect(result.stderr.contains("chooses \(b)"), "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
                #expect(!FileManager.default.fileExists(atPath: home), "\(arguments) wrote the home")
            }
            let agreeing = try await Self.push(keyring, ["keys", "--account", a], ["ADM_PASSPHRASE": alice])
            #expect(agreeing.status == 0 && agreeing.stdout.contains(a), "\(agreeing.stderr)")
        }
    }

    /// An account stored twice (another tool kept an item of its own beside adm-push's) is one
    /// account: listed once, read, and left with one item by a new login; logout takes all.
    @Test func twoItemsOfOneAddressAreOneAccount() async throws {
        try await TestKeyring.with { keyring in
            let a = try KeyringCommandTests.address(alice)
            #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice]).status == 0)
            let other = try await keyring.secretTool(
                ["store", "--label=copy", "xdg:schema", "im.adamant.Account", "address", a, "by", "another tool"],
                input: alice)
            try #require(other.status == 0)
            let items = { () async throws -> Int in
                let search = try await keyring.secretTool(["search", "--all", "address", a])
                return search.stdout.components(separatedBy: "secret = ").count - 1
            }
            #expect(try await items() == 2)
            let keys = try await Self.push(keyring, ["keys", "--json"])
            #expect(keys.status == 0 && keys.stdout.contains(a), "\(keys.stderr)")
            let config = try await Self.push(keyring, ["config", "--json"])
            #expect(config.stdout.contains("the keyring, \(a)\""), "\(config.stdout)")
            #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice]).status == 0)
            #expect(try await items() == 1)
            _ = try await keyring.secretTool(
                ["store", "--label=copy", "xdg:schema", "im.adamant.Account", "address", a, "by", "another tool"],
                input: alice)
            let logout = try await Self.push(keyring, ["logout"])
            #expect(logout.status == 0 && logout.stdout == a + "\n", "\(logout.stderr)")
            #expect(try await items() == 0)
        }
    }
}
