import AdamantCore
import AdamantDevnet
import Foundation
import KeyringTestSupport
import Testing

/// register, fetch and watch on a devnet with the passphrase in the keyring and nowhere else.
@Suite("the keyring's passphrase on a devnet", .timeLimit(.minutes(4)))
struct KeyringDevnetTests {
    /// What every command runs with: the keyring's bus and home, the devnet's nodes, and no
    /// passphrase.
    static func environment(_ keyring: TestKeyring, _ network: FetchDevnet) -> [String: String] {
        keyring.environment.merging(["ADM_NODES": network.devnet.nodeURLs.joined(separator: ",")]) { $1 }
    }

    static func login(_ passphrase: String, _ keyring: TestKeyring) async throws {
        let login = try await run(
            "adm-push", ["login"], environment: keyring.environment.merging(["ADM_PASSPHRASE": passphrase]) { $1 })
        try #require(login.status == 0, "\(login.stderr)")
    }

    /// `body` with a devnet, a second account, and a keyring both are logged in to.
    static func withTwoAccounts(_ body: (FetchDevnet, KeyPair, TestKeyring) async throws -> Void) async throws {
        let network = try await FetchDevnet()
        let otherPassphrase = BIP39.randomMnemonic()
        let other = KeyPair(passphrase: try Passphrase(validating: otherPassphrase))
        try await TestKeyring.with { keyring in
            try await login(network.outbox.passphrase, keyring)
            try await login(otherPassphrase, keyring)
            try await body(network, other, keyring)
        }
    }

    /// Logged in once, the account registers, fetches and watches with no passphrase given;
    /// afterwards no file under the homes, the XDG directories or /tmp holds three words of
    /// the passphrase in a row, and neither does a hook's environment.
    @Test func registerFetchAndWatchNeedOnlyTheKeyring() async throws {
        let network = try await FetchDevnet()
        let started = Date()
        try await TestKeyring.with { keyring in
            try await Self.login(network.outbox.passphrase, keyring)
            let environment = Self.environment(keyring, network)
            let home = network.outbox.home + "/home"
            let ans = network.devnet.ans
            let register = try await run(
                "adm-push",
                [
                    "register", "--token", OutboxCommandTests.token, "--provider", "apns", "--home", home,
                    "--service-address", ans.address.description, "--service-public-key", ans.publicKey.hex,
                ], environment: environment, timeout: 60)
            #expect(register.status == 0, "\(register.stderr)")

            let sent = try await network.send("to the keyring's account", from: network.friend, to: network.me)
            let fetch = try await run(
                "adm-fetch", [try #require(sent.id).description, "--home", home, "--json"], environment: environment,
                timeout: 60)
            #expect(fetch.status == 0 && fetch.stdout.contains("to the keyring's account"), "\(fetch.stderr)")

            let hooked = network.outbox.home + "/hook-environment"
            let watch = try await WatchProcess(
                network, ["--exec", "env > '\(hooked)'"], name: "keyring", environment: environment,
                givingPassphrase: false)
            _ = try await network.submit("to the watch", from: network.friend, to: network.me)
            try await watch.until("the hook ran") {
                ((try? String(contentsOfFile: hooked, encoding: .utf8)) ?? "").contains("ADM_TITLE=")
            }
            let stopped = try await watch.stop()
            #expect(stopped.status == 0, "\(watch.stderr)")
            let hookEnvironment = try String(contentsOfFile: hooked, encoding: .utf8)
            #expect(hookEnvironment.contains("ADM_ACCOUNT=\(network.me.address)"))

            // The search is shown to find what it looks for: a file of another passphrase's.
            let control = BIP39.randomMnemonic()
            try control.write(toFile: keyring.folder + "/home/control", atomically: true, encoding: .utf8)
            let folders = [keyring.folder, network.outbox.home, NSTemporaryDirectory(), "/tmp"]
            #expect(Self.holders(of: control, under: folders, since: started) == [keyring.folder + "/home/control"])
            #expect(Self.holders(of: network.outbox.passphrase, under: [hooked], since: started).isEmpty)
            let holders = Self.holders(of: network.outbox.passphrase, under: folders, since: started)
            #expect(holders.isEmpty, "the passphrase is in \(holders)")
        }
    }

    /// With two accounts in the keyring and none chosen, a push names whose it is: its
    /// recipient's passphrase is taken. A bare transaction id names nobody: 64, naming both.
    @Test func aPushChoosesItsRecipientsPassphrase() async throws {
        try await Self.withTwoAccounts { network, other, keyring in
            let sent = try await network.send("for the other", from: network.friend, to: other)
            let id = try #require(sent.id).description
            let home = ["--home", network.outbox.home + "/home"]
            let payload = #"{"txn-id": "\#(id)", "push-recipient": "\#(other.address)"}"#
            let pushed = try await run(
                "adm-fetch", ["--payload", "-", "--json"] + home, environment: Self.environment(keyring, network),
                input: Data(payload.utf8), timeout: 60)
            #expect(pushed.status == 0 && pushed.stdout.contains("for the other"), "\(pushed.stderr)")
            let bare = try await run(
                "adm-fetch", [id] + home, environment: Self.environment(keyring, network), timeout: 60)
            #expect(
                bare.status == 64 && bare.stderr.contains("the keyring holds the passphrases of "), "\(bare.stderr)")
            #expect(bare.stdout == "ADAMANT\nNew message\n", "the generic text first: \(bare.stdout)")
        }
    }

    /// The config file's account, set as the flush unit's comment advises a user of several
    /// accounts to, does not keep a push for the other account from that one's passphrase; an
    /// --account that names another than the push's recipient is 64 naming both, after the
    /// generic text.
    @Test func aPushsRecipientWinsOverTheConfigFilesAccount() async throws {
        try await Self.withTwoAccounts { network, other, keyring in
            let config = keyring.folder + "/config/adm-push"
            try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
            try #"{"account": "\#(network.me.address)"}"#.write(
                toFile: config + "/config.json", atomically: true, encoding: .utf8)
            let sent = try await network.send("for the other", from: network.friend, to: other)
            let id = try #require(sent.id).description
            let home = ["--home", network.outbox.home + "/home"]
            let payload = Data(#"{"txn-id": "\#(id)", "push-recipient": "\#(other.address)"}"#.utf8)
            let pushed = try await run(
                "adm-fetch", ["--payload", "-", "--json"] + home, environment: Self.environment(keyring, network),
                input: payload, timeout: 60)
            #expect(pushed.status == 0 && pushed.stdout.contains("for the other"), "\(pushed.stderr)")
            let named = try await run(
                "adm-fetch", ["--payload", "-", "--account", network.me.address.description] + home,
                environment: Self.environment(keyring, network), input: payload, timeout: 60)
            #expect(named.status == 64 && named.stdout == "ADAMANT\nNew message\n", "\(named.stderr)")
            #expect(
                named.stderr.contains("the push is for \(other.address), but --account chooses \(network.me.address)"),
                "\(named.stderr)")
        }
    }

    /// A fetch that gets no passphrase still shows the generic text, before its error: the
    /// keyring locked (75), and no session bus with no passphrase given (64).
    @Test func aFetchWithNoPassphraseStillShowsTheGenericText() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send("hello", from: network.friend, to: network.me)
        let id = try #require(sent.id).description
        let home = ["--home", network.outbox.home + "/home"]
        try await TestKeyring.with { keyring in
            try await Self.login(network.outbox.passphrase, keyring)
            try await keyring.lock()
            let locked = try await run("adm-fetch", [id] + home, environment: Self.environment(keyring, network))
            #expect(locked.status == 75 && locked.stdout == "ADAMANT\nNew message\n", "\(locked.stderr)")
            #expect(locked.stderr.contains("the keyring is locked"), "\(locked.stderr)")
            var busless = Self.environment(keyring, network)
            busless["DBUS_SESSION_BUS_ADDRESS"] = nil
            busless["XDG_RUNTIME_DIR"] = keyring.folder + "/home"
            let none = try await run("adm-fetch", [id, "--json"] + home, environment: busless)
            #expect(none.status == 64, "\(none.stderr)")
            #expect(none.stdout.contains(#""fallback":true"#) && none.stdout.contains(#""body":"New message""#))
        }
    }

    /// Two accounts listed in the config file by address, the keyring locked when the watch
    /// starts: it says it waits, watches neither, and once the keyring is unlocked watches
    /// both and shows what each is sent, for that account.
    @Test func aWatchStartedLockedWaitsForTheUnlockThenWatchesEachAccount() async throws {
        try await Self.withTwoAccounts { network, other, keyring in
            let config = keyring.folder + "/config/adm-push"
            try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
            try #"{"accounts": [{"account": "\#(network.me.address)"}, {"account": "\#(other.address)"}]}"#.write(
                toFile: config + "/config.json", atomically: true, encoding: .utf8)
            try await keyring.lock()

            let watch = try await WatchProcess(
                network, [], name: "locked", environment: Self.environment(keyring, network), givingPassphrase: false,
                untilWatching: false)
            try await watch.until("it waits for the unlock") { watch.stderr.contains("waiting for it to be unlocked") }
            #expect(!watch.stderr.contains("Watching "))
            try await keyring.unlockWithPassword()
            try await watch.until("both are watched", within: 30) {
                watch.stderr.contains("Watching \(network.me.address)")
                    && watch.stderr.contains("Watching \(other.address)")
            }
            let toMe = try await network.submit("to me", from: network.friend, to: network.me)
            let toOther = try await network.submit("to the other", from: network.friend, to: other)
            try await watch.until("both are printed") { watch.ids.count >= 2 }
            let stopped = try await watch.stop()
            #expect(stopped.status == 0, "\(watch.stderr)")
            let shown = WatchAccountsTests.objects(watch).map {
                ($0["id"] as? String ?? "", $0["account"] as? String ?? "")
            }
            #expect(
                Set(shown.map { "\($0.0) \($0.1)" })
                    == ["\(toMe) \(network.me.address)", "\(toOther) \(other.address)"], "\(shown)")
        }
    }

    /// A watch waiting for the keyring's unlock stops on SIGTERM as a running one does: exit 0,
    /// saying so, not killed by the signal.
    @Test func aWatchWaitingForTheUnlockStopsCleanlyOnSigterm() async throws {
        let network = try await FetchDevnet()
        try await TestKeyring.with { keyring in
            try await Self.login(network.outbox.passphrase, keyring)
            try await keyring.lock()
            let watch = try await WatchProcess(
                network, [], name: "waiting", environment: Self.environment(keyring, network), givingPassphrase: false,
                untilWatching: false)
            try await watch.until("it waits for the unlock") { watch.stderr.contains("waiting for it to be unlocked") }
            let stopped = try await watch.stop()
            #expect(stopped.status == 0, "\(watch.stderr)")
            #expect(watch.stderr.contains("stopped by SIGTERM"), "\(watch.stderr)")
        }
    }

    /// The regular files under `folders` (or the files named), changed since `moment` and
    /// under 64 MiB, that hold three words of `passphrase` in a row.
    static func holders(of passphrase: String, under folders: [String], since moment: Date) -> [String] {
        let words = passphrase.split(separator: " ")
        let runs = (0...(words.count - 3)).map { Data(words[$0..<($0 + 3)].joined(separator: " ").utf8) }
        var paths: [String] = []
        for folder in folders.map({ ($0 as NSString).standardizingPath }) {
            let walker = FileManager.default.enumerator(atPath: folder)
            var names = walker == nil ? [""] : []
            while let name = walker?.nextObject() as? String { names.append(name) }
            paths += names.map { $0.isEmpty ? folder : folder + "/" + $0 }
        }
        return Set(paths).sorted().filter { path in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                (attributes[.modificationDate] as? Date ?? .distantPast) >= moment,
                (attributes[.size] as? Int ?? 0) < 64 << 20,
                let data = FileManager.default.contents(atPath: path)
            else { return false }
            return runs.contains { data.range(of: $0) != nil }
        }
    }
}
