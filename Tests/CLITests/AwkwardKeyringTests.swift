import AdamantCore
import Foundation
import KeyringTestSupport
import Testing

/// The keyring's commands against a Secret Service of the test's own that misbehaves as some
/// do (scripts/fake-secret-service): slow to answer, listing an item deleted meanwhile, or
/// refusing the encrypted session.
@Suite("a keyring that misbehaves", .timeLimit(.minutes(3)))
struct AwkwardKeyringTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/fake-secret-service").path

    let alice = BIP39.randomMnemonic()

    /// `body` with the fake service on a bus of its own, holding `items` (passphrase, address
    /// pairs, stored as adm-push stores them) and started with `options`.
    static func with(
        _ items: [(passphrase: String, address: String)], _ options: [String],
        _ body: (TestKeyring) async throws -> Void
    ) async throws {
        try await TestKeyring.with(gnomeKeyring: false) { keyring in
            let list = items.map {
                [
                    "label": "ADAMANT account \($0.address)", "secret": $0.passphrase,
                    "attributes": ["xdg:schema": "im.adamant.Account", "address": $0.address],
                ] as [String: Any]
            }
            let file = keyring.folder + "/items.json"
            try JSONSerialization.data(withJSONObject: list).write(to: URL(fileURLWithPath: file))
            let service = try KeyringChild(
                "/usr/bin/python3", [script, "--address", keyring.busAddress, "--items", file] + options,
                environment: ["PATH": "/usr/bin:/bin"], folder: keyring.folder, name: "fake-secret-service")
            defer { service.stop() }
            let deadline = ContinuousClock.now + .seconds(20)
            while !((try? String(contentsOfFile: service.stdoutPath, encoding: .utf8)) ?? "").contains("ready") {
                guard ContinuousClock.now < deadline else {
                    throw KeyringChild.Failure("the fake service never came up: \(service.stderr)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await body(keyring)
        }
    }

    /// Twenty accounts, each item's attributes answered after 4 s: a command that knows its
    /// account searches for it alone and is done in seconds; one that must list them all
    /// stops at the one deadline of the whole read, in one line.
    @Test func aSlowServiceHoldsACommandTenSecondsAtMost() async throws {
        let others = (0..<19).map { _ in BIP39.randomMnemonic() }
        let items = try ([alice] + others).map { ($0, try KeyringCommandTests.address($0)) }
        let a = items[0].1
        try await Self.with(items, ["--delay", "4"]) { keyring in
            let chosen = try await KeyringCommandTests.push(keyring, ["keys", "--account", a])
            #expect(chosen.status == 0 && chosen.stdout.contains(a), "\(chosen.stderr)")
            #expect(chosen.elapsed < .seconds(4), "\(chosen.elapsed)")
            let listing = try await KeyringCommandTests.push(keyring, ["keys"])
            #expect(listing.status == 64, "\(listing.stderr)")
            #expect(listing.elapsed < .seconds(13), "\(listing.elapsed)")
            #expect(listing.stderr.contains("within 10 s"), "\(listing.stderr)")
            #expect(listing.stderr.filter { $0 == "\n" }.count == 1, "\(listing.stderr)")
        }
    }

    /// An item listed by the search and gone by the time it is read is passed over: the one
    /// account there is still read, and logout removes it.
    @Test func anItemDeletedMeanwhileIsPassedOver() async throws {
        let a = try KeyringCommandTests.address(alice)
        try await Self.with([(alice, a)], ["--ghosts", "2"]) { keyring in
            let keys = try await KeyringCommandTests.push(keyring, ["keys"])
            #expect(keys.status == 0 && keys.stdout.contains(a), "\(keys.stderr)")
            let logout = try await KeyringCommandTests.push(keyring, ["logout"])
            #expect(logout.status == 0 && logout.stdout == a + "\n", "\(logout.stderr)")
        }
    }

    /// A service that refuses the encrypted session: every read of a passphrase says that it
    /// crossed the bus unencrypted, and so does `config`.
    @Test func aPlainSessionIsWarnedAboutOnEveryRead() async throws {
        let a = try KeyringCommandTests.address(alice)
        try await Self.with([(alice, a)], ["--encrypted", "refuse"]) { keyring in
            for arguments in [["keys"], ["keys", "--account", a]] {
                let keys = try await KeyringCommandTests.push(keyring, arguments)
                #expect(keys.status == 0 && keys.stdout.contains(a), "\(keys.stderr)")
                #expect(
                    keys.stderr.contains("warning: the keyring offers no encrypted session: the passphrase of \(a)"),
                    "\(arguments): \(keys.stderr)")
            }
            let config = try await KeyringCommandTests.push(keyring, ["config"])
            #expect(config.stdout.contains("unencrypted on the bus"), "\(config.stdout)")
        }
    }
}
