import AdamantCore
import AdamantDevnet
import AdamantStore
import Foundation
import Testing

/// Several accounts in one `adm-fetch watch`: each notification once, naming its account.
@Suite("adm-fetch watch, several accounts", .timeLimit(.minutes(4)))
struct WatchAccountsTests {
    /// A private file holding `passphrase`, as --passphrase-file wants it.
    static func passphraseFile(_ passphrase: String, at path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(passphrase.utf8), attributes: [.posixPermissions: 0o600]))
    }

    /// A devnet and a second account, with both passphrases in `me.key` and `other.key` of
    /// the devnet's folder.
    static func twoAccounts() async throws -> (FetchDevnet, other: KeyPair) {
        let network = try await FetchDevnet()
        let otherPassphrase = BIP39.randomMnemonic()
        try passphraseFile(network.outbox.passphrase, at: network.outbox.home + "/me.key")
        try passphraseFile(otherPassphrase, at: network.outbox.home + "/other.key")
        return (network, KeyPair(passphrase: try Passphrase(validating: otherPassphrase)))
    }

    static func objects(_ watch: WatchProcess) -> [[String: Any]] {
        watch.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Two --passphrase-file: one process, one home; what each account is sent is shown once,
    /// for that account (a message between the two only to its recipient), with ADM_ACCOUNT set.
    @Test func twoPassphraseFilesAreWatchedByOneProcess() async throws {
        let (network, other) = try await Self.twoAccounts()
        let folder = network.outbox.home
        let hooked = folder + "/hooked"
        let watch = try await WatchProcess(
            network,
            [
                "--passphrase-file", folder + "/me.key", "--passphrase-file", folder + "/other.key",
                "--exec", "echo \"$ADM_ACCOUNT $ADM_TXN_ID\" >> '\(hooked)'",
            ], name: "two", environment: ["ADM_PASSPHRASE": "not used when files are given"])
        try await watch.until("both are watched") { watch.stderr.contains("Watching \(other.address)") }
        #expect(watch.stderr.contains("Watching \(network.me.address)"))
        // One socket a node for both accounts: two nodes' sessions (the watch's width), each
        // subscribed to both addresses, and none beside them.
        let both: Set = [network.me.address, other.address]
        let devnet = network.devnet
        try await watch.until("two nodes' sockets carry both accounts") {
            let sessions = (0..<devnet.nodeURLs.count).map { (try? devnet.socketSubscriptions(ofNode: $0)) ?? [] }
            return sessions.allSatisfy { $0.count <= 1 } && sessions.joined().count == 2
                && sessions.joined().allSatisfy { $0 == both }
        }

        let toMe = try await network.submit("to me", from: network.friend, to: network.me)
        let toOther = try await network.submit("to the other", from: network.friend, to: other)
        let between = try await network.submit("me to the other", from: network.me, to: other)
        try await watch.until("all three are printed") { watch.ids.count >= 3 }
        try await watch.until("all three are hooked") {
            ((try? String(contentsOfFile: hooked, encoding: .utf8)) ?? "").split(separator: "\n").count >= 3
        }
        let result = try await watch.stop()
        #expect(result.status == 0, "\(watch.stderr)")

        let expected = [
            toMe.description: network.me.address.description, toOther.description: other.address.description,
            between.description: other.address.description,
        ]
        let shown = Self.objects(watch).map { ($0["id"] as? String ?? "", $0["account"] as? String ?? "") }
        #expect(shown.count == 3 && Set(shown.map(\.0)) == Set(expected.keys), "each once: \(shown)")
        for (id, account) in shown {
            #expect(expected[id] == account, "\(id) is for \(expected[id] ?? "nobody"), not \(account)")
        }
        let hooks = try String(contentsOfFile: hooked, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        #expect(
            Set(hooks.map { $0.last ?? "" }) == Set(expected.keys)
                && hooks.allSatisfy { expected[$0.last ?? ""] == $0.first })

        // Each account's cursor is its own.
        let log = try NotificationLog(home: folder + "/home")
        #expect(try await log.watchCursor(account: network.me.address, stream: .chats) != nil)
        #expect(try await log.watchCursor(account: other.address, stream: .chats) != nil)
    }

    /// The config file's `accounts`, each with a home of its own, when no --passphrase-file is
    /// given; a text line names its account when there are several.
    @Test func theConfigFilesAccountsEachKeepTheirHome() async throws {
        let (network, other) = try await Self.twoAccounts()
        let folder = network.outbox.home
        let config = folder + "/config/adm-push"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let settings =
            #"{"accounts": [{"passphraseFile": "\#(folder)/me.key"}, {"passphraseFile": "\#(folder)/other.key", "home": "\#(folder)/other-home"}]}"#
        #expect(
            FileManager.default.createFile(
                atPath: config + "/config.json", contents: Data(settings.utf8), attributes: [.posixPermissions: 0o600]))
        let watch = try await WatchProcess(
            network, ["--no-live"], name: "config", environment: ["XDG_CONFIG_HOME": folder + "/config"])
        try await watch.until("both are watched") {
            watch.stderr.contains("Watching \(other.address)")
                && watch.stderr.contains("Watching \(network.me.address)")
        }
        _ = try await network.submit("to the other", from: network.friend, to: other)
        try await watch.until("it is printed") { watch.ids.count >= 1 }
        #expect(try await watch.stop().status == 0, "\(watch.stderr)")
        #expect(Self.objects(watch).map { $0["account"] as? String } == [other.address.description])
        let theirs = try NotificationLog(home: folder + "/other-home")
        #expect(try await theirs.watchCursor(account: other.address, stream: .chats) != nil, "kept in its own home")
        let shared = try NotificationLog(home: folder + "/home")
        #expect(try await shared.watchCursor(account: other.address, stream: .chats) == nil)

        // Without --json, each line starts with the account it is for.
        let text = try await WatchProcess(
            network, ["--no-live"], name: "config-text", environment: ["XDG_CONFIG_HOME": folder + "/config"],
            json: false)
        _ = try await network.submit("to me", from: network.friend, to: network.me)
        try await text.until("it is printed") { text.stdout.contains("\n") }
        #expect(try await text.stop().status == 0, "\(text.stderr)")
        #expect(
            text.stdout.hasPrefix("[\(network.me.address)] ") && text.stdout.hasSuffix(": to me\n"), "\(text.stdout)")
    }

    /// The same account twice is refused before anything is watched; a bad passphrase in one
    /// of several files names that file.
    @Test func theSameAccountTwiceOrABadFileIsRefused() async throws {
        let network = try await FetchDevnet()
        let folder = network.outbox.home
        try Self.passphraseFile(network.outbox.passphrase, at: folder + "/me.key")
        try Self.passphraseFile(network.outbox.passphrase, at: folder + "/again.key")
        try Self.passphraseFile("not a passphrase at all", at: folder + "/bad.key")
        let environment = ["ADM_NODES": network.devnet.nodeURLs.joined(separator: ",")]
        let twice = try await run(
            "adm-fetch",
            [
                "watch", "--home", folder + "/home", "--passphrase-file", folder + "/me.key", "--passphrase-file",
                folder + "/again.key",
            ], environment: environment)
        #expect(
            twice.status == 64
                && twice.stderr == "Error: \(network.me.address) is given twice: watch each account once\n",
            "\(twice.stderr)")
        let bad = try await run(
            "adm-fetch",
            [
                "watch", "--home", folder + "/home", "--passphrase-file", folder + "/me.key", "--passphrase-file",
                folder + "/bad.key",
            ], environment: environment)
        #expect(
            bad.status == 64
                && bad.stderr.hasPrefix("Error: --passphrase-file '\(folder)/bad.key': invalid passphrase"),
            "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/home/notifications.sqlite"), "nothing was started")
    }
}

/// One account's home on a disk that fills up, in a watch of two: that account is set aside
/// with one line and tried again, the other goes on, and once there is room again what the
/// first was sent is shown. Needs a small tmpfs of its own, so root (as in CI).
@Suite("adm-fetch watch, one account's disk full", .timeLimit(.minutes(3)))
struct WatchFullDiskTests {
    @Test(.enabled(if: TraceTools.inCI || getuid() == 0)) func oneFullHomeStopsNoOtherAccount() async throws {
        let (network, other) = try await WatchAccountsTests.twoAccounts()
        let folder = network.outbox.home
        let small = folder + "/other-home"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try await Tmpfs.with(at: small, options: "size=1m,mode=0700") {
            try await watchBesideASmallDisk(network, other, folder: folder, small: small)
        }
    }

    private func watchBesideASmallDisk(_ network: FetchDevnet, _ other: KeyPair, folder: String, small: String)
        async throws
    {
        let config = folder + "/config/adm-push"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let settings =
            #"{"accounts": [{"passphraseFile": "\#(folder)/me.key"}, {"passphraseFile": "\#(folder)/other.key", "home": "\#(small)"}]}"#
        #expect(
            FileManager.default.createFile(
                atPath: config + "/config.json", contents: Data(settings.utf8), attributes: [.posixPermissions: 0o600]))
        let watch = try await WatchProcess(network, name: "full", environment: ["XDG_CONFIG_HOME": folder + "/config"])
        try await watch.until("both are watched") {
            watch.stderr.contains("Watching \(other.address)")
                && watch.stderr.contains("Watching \(network.me.address)")
        }

        // Every byte left taken.
        let filler = small + "/filler"
        #expect(FileManager.default.createFile(atPath: filler, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        let block = Data(count: 4_096)
        while (try? handle.write(contentsOf: block)) != nil {}
        try? handle.close()
        let toOther = try await network.submit("to the full one", from: network.friend, to: other).description
        try await watch.until("it is set aside") { watch.stderr.contains("watch: \(other.address) is set aside") }
        let toMe = try await network.submit("to me", from: network.friend, to: network.me).description
        try await watch.until("the other account goes on") { watch.ids.contains(toMe) }
        #expect(!watch.ids.contains(toOther))
        #expect(try await watch.stop().status == 0, "\(watch.stderr)")
        #expect(watch.stderr.components(separatedBy: "is set aside").count == 2, "said once: \(watch.stderr)")

        // Started again while the disk is still full: the same, from the start.
        let again = try await WatchProcess(network, name: "again", environment: ["XDG_CONFIG_HOME": folder + "/config"])
        try await again.until("it is set aside at the start") {
            again.stderr.contains("watch: \(other.address) is set aside")
        }
        let later = try await network.submit("to me again", from: network.friend, to: network.me).description
        try await again.until("the other account goes on") { again.ids.contains(later) }

        try FileManager.default.removeItem(atPath: filler)
        try await again.until("once there is room, it is shown") {
            again.ids.contains(toOther) && again.stderr.contains("works again")
        }
        let result = try await again.stop()
        #expect(result.status == 0, "\(again.stderr)")
        #expect(
            watch.ids + again.ids == [toMe, later, toOther] || watch.ids + again.ids == [toMe, toOther, later],
            "each once: \(watch.ids + again.ids)")
        #expect(again.stderr.contains("Watching \(other.address)"))
    }
}
