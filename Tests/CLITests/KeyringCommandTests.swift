import AdamantCore
import Foundation
import KeyringTestSupport
import Testing

/// `adm-push login` and `logout`, and every command taking the passphrase from the keyring:
/// real processes against a real gnome-keyring on a private session bus.
@Suite("the passphrase in the keyring", .timeLimit(.minutes(3)))
struct KeyringCommandTests {
    let alice = BIP39.randomMnemonic()
    let bob = BIP39.randomMnemonic()

    static func address(_ passphrase: String) throws -> String {
        KeyPair(passphrase: try Passphrase(validating: passphrase)).address.description
    }

    /// `adm-push` on the keyring's bus and in its home, with nothing of the user's: no
    /// passphrase unless `extra` gives one, and no terminal.
    static func push(_ keyring: TestKeyring, _ arguments: [String], _ extra: [String: String] = [:]) async throws
        -> RunResult
    {
        try await run("adm-push", arguments, environment: keyring.environment.merging(extra) { $1 }, timeout: 30)
    }

    static func expectOneLine(
        _ result: RunResult, status: Int32, starting prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.hasPrefix("Error: " + prefix) && result.stderr.filter { $0 == "\n" }.count == 1,
            "\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// What login stores libsecret's own tool reads back, under the label and attributes the
    /// desktop's keyring manager shows; the address is what login prints, and `keys` then
    /// needs no passphrase given.
    @Test func loginStoresThePassphraseWhereSecretToolFindsIt() async throws {
        try await TestKeyring.with { keyring in
            let address = try Self.address(alice)
            let login = try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice])
            #expect(login.status == 0 && login.stdout == address + "\n", "\(login.stderr)")
            let lookup = try await keyring.secretTool(["lookup", "address", address])
            #expect(lookup.status == 0 && lookup.stdout == alice)
            let search = try await keyring.secretTool(["search", "--all", "xdg:schema", "im.adamant.Account"])
            #expect(search.status == 0)
            #expect(search.stdout.contains("label = ADAMANT account \(address)\n"), "\(search.stdout)")
            let keys = try await Self.push(keyring, ["keys", "--json"])
            #expect(keys.status == 0 && keys.stdout.contains("\"address\":\"\(address)\""), "\(keys.stderr)")
            let config = try await Self.push(keyring, ["config", "--json"])
            #expect(
                config.stdout.contains(#""name":"passphrase","origin":"default","value":"the keyring, \#(address)""#))
        }
    }

    /// A passphrase file moved in: login says the file can go, and leaves it to the user.
    @Test func loginFromAFileSaysTheFileCanBeRemoved() async throws {
        try await TestKeyring.with { keyring in
            let file = keyring.folder + "/home/passphrase"
            #expect(
                FileManager.default.createFile(
                    atPath: file, contents: Data((bob + "\n").utf8), attributes: [.posixPermissions: 0o600]))
            let status = try await Self.push(keyring, ["status", "--passphrase-file", file])
            #expect(status.stderr.contains("warning: the passphrase is read from the plain file"), "\(status.stderr)")
            let login = try await Self.push(keyring, ["login", "--passphrase-file", file])
            let address = try Self.address(bob)
            #expect(login.status == 0 && login.stdout == address + "\n", "\(login.stderr)")
            #expect(login.stderr.contains("'\(file)' can be removed"), "\(login.stderr)")
            #expect(FileManager.default.fileExists(atPath: file))
            #expect(try await keyring.secretTool(["lookup", "address", address]).stdout == bob)
        }
    }

    /// Two accounts: one is chosen by --account, ADM_ACCOUNT or the config file, none chosen
    /// is 64 naming both; logout removes the one named and keeps the other, which is then
    /// the only one.
    @Test func twoAccountsAreChosenBetweenAndLogoutRemovesOne() async throws {
        try await TestKeyring.with { keyring in
            let (a, b) = (try Self.address(alice), try Self.address(bob))
            for passphrase in [alice, bob] {
                #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": passphrase]).status == 0)
            }
            let neither = try await Self.push(keyring, ["keys"])
            Self.expectOneLine(neither, status: 64, starting: "the keyring holds the passphrases of ")
            #expect(neither.stderr.contains(a) && neither.stderr.contains(b))
            Self.expectOneLine(
                try await Self.push(keyring, ["logout"]), status: 64, starting: "the keyring holds the passphrases of ")
            #expect(try await Self.push(keyring, ["keys", "--account", a]).stdout.contains(a))
            #expect(try await Self.push(keyring, ["keys"], ["ADM_ACCOUNT": b]).stdout.contains(b))
            let config = keyring.folder + "/config/adm-push"
            try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
            try #"{"account": "\#(a)"}"#.write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
            #expect(try await Self.push(keyring, ["keys"]).stdout.contains(a))
            let unknown = try await Self.push(keyring, ["keys", "--account", "U1"])
            Self.expectOneLine(unknown, status: 64, starting: "the keyring holds no passphrase of U1")

            let logout = try await Self.push(keyring, ["logout", "--account", a])
            #expect(logout.status == 0 && logout.stdout == a + "\n", "\(logout.stderr)")
            #expect(try await keyring.secretTool(["lookup", "address", a]).status != 0)
            #expect(try await keyring.secretTool(["lookup", "address", b]).stdout == bob)
            try FileManager.default.removeItem(atPath: config + "/config.json")
            #expect(try await Self.push(keyring, ["keys"]).stdout.contains(b))
            let all = try await Self.push(keyring, ["logout", "--all"])
            #expect(all.status == 0 && all.stdout == b + "\n")
            let none = try await Self.push(keyring, ["keys"])
            Self.expectOneLine(none, status: 64, starting: "no passphrase: ")
            #expect(none.stderr.contains("the keyring holds none") && none.stderr.contains("adm-push login"))
        }
    }

    /// Locked through the service's Lock, with no display for a prompter: 75 within seconds,
    /// in one line; `config` says so without asking; unlocked, the passphrase is read again.
    @Test func aLockedKeyringIsExit75WithinSeconds() async throws {
        try await TestKeyring.with { keyring in
            let address = try Self.address(alice)
            #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice]).status == 0)
            try await keyring.lock()
            let keys = try await Self.push(keyring, ["keys"])
            Self.expectOneLine(keys, status: 75, starting: "the keyring is locked")
            #expect(keys.elapsed < .seconds(5), "\(keys.elapsed)")
            let config = try await Self.push(keyring, ["config"])
            #expect(config.stdout.contains("the keyring, \(address) (locked)"), "\(config.stdout)")
            let logout = try await Self.push(keyring, ["logout"])
            Self.expectOneLine(logout, status: 75, starting: "the keyring is locked")
            try await keyring.unlockWithPassword()
            #expect(try await Self.push(keyring, ["keys"]).stdout.contains(address))
        }
    }

    /// A flush with no terminal, as its timer runs it, says the keyring is locked at once and
    /// asks for no unlock: gnome-keyring's prompter, which the bus would start for one (as
    /// `KeyringUnavailableTests` shows), is never started.
    @Test func aTimersFlushAsksForNoUnlock() async throws {
        try await TestKeyring.with(neverStarting: ["org.gnome.keyring.SystemPrompter"]) { keyring in
            #expect(try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice]).status == 0)
            try await keyring.lock()
            let flush = try await Self.push(keyring, ["flush", "--node", "http://127.0.0.1:1"])
            Self.expectOneLine(flush, status: 75, starting: "the keyring is locked")
            #expect(flush.elapsed < .seconds(5) && !keyring.started("org.gnome.keyring.SystemPrompter"))
        }
    }

    /// No bus, or a bus with no Secret Service, even one the bus starts and that never comes
    /// up: login is 69 naming what is missing, another command 64 saying what it tried, each
    /// within seconds and in one line.
    @Test func noBusOrNoServiceIsSaidWithinSeconds() async throws {
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "ADM_PASSPHRASE": alice]
        let login = try await run("adm-push", ["login"], environment: noBus)
        Self.expectOneLine(login, status: 69, starting: "no session bus to reach the keyring")
        let keys = try await run("adm-push", ["keys"], environment: noBus.filter { $0.key != "ADM_PASSPHRASE" })
        Self.expectOneLine(keys, status: 64, starting: "no passphrase: ")
        for source in ["--passphrase-file", "ADM_PASSPHRASE", "no terminal", "the keyring cannot be reached"] {
            #expect(keys.stderr.contains(source), "\(source): \(keys.stderr)")
        }
        try await TestKeyring.with(gnomeKeyring: false, neverStarting: ["org.freedesktop.secrets"]) { keyring in
            let login = try await Self.push(keyring, ["login"], ["ADM_PASSPHRASE": alice])
            Self.expectOneLine(login, status: 69, starting: "no keyring (Secret Service) answers")
            #expect(login.elapsed < .seconds(8), "\(login.elapsed)")
            let keys = try await Self.push(keyring, ["keys"])
            Self.expectOneLine(keys, status: 64, starting: "no passphrase: ")
            #expect(keys.stderr.contains("no Secret Service") && keys.elapsed < .seconds(8), "\(keys.stderr)")
        }
    }
}
