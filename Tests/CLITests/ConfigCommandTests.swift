import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// `adm-push config` and the config file as the real commands read it: a temporary
/// `XDG_CONFIG_HOME` and `HOME` per test, nothing inherited from this machine.
@Suite("config", .timeLimit(.minutes(2)))
final class ConfigCommandTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-config-cli-\(UUID().uuidString)")
        .path
    var configPath: String { folder + "/config/adm-push/config.json" }
    var environment: [String: String] { ["XDG_CONFIG_HOME": folder + "/config", "HOME": folder + "/user"] }

    /// Two services of their own, so a value from each origin is told apart from the others.
    static let fileService = try! NotificationService.of(
        KeyPair(passphrase: Passphrase(validating: BIP39.randomMnemonic())))
    static let flagService = try! NotificationService.of(
        KeyPair(passphrase: Passphrase(validating: BIP39.randomMnemonic())))
    static let fileNethash = String(repeating: "ab", count: 32)
    static let flagNethash = String(repeating: "cd", count: 32)

    init() throws {
        try FileManager.default.createDirectory(atPath: folder + "/config/adm-push", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func write(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    func serviceJSON(_ service: NotificationService) -> String {
        #"{"address": "\#(service.address)", "publicKey": "\#(service.publicKey.hex)"}"#
    }

    struct Report: Decodable {
        struct Entry: Decodable {
            let name: String
            let value: Value
            let origin: String
            let source: String?
            let exists: Bool?
        }
        let settings: [Entry]

        subscript(_ name: String) -> Entry? { settings.first { $0.name == name } }
    }

    enum Value: Decodable, Equatable {
        case text(String)
        case list([String])
        case none

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .none
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .list(try container.decode([String].self))
            }
        }
    }

    func config(_ arguments: [String] = [], extra: [String: String] = [:]) async throws -> Report {
        let result = try await run(
            "adm-push", ["config", "--json"] + arguments, environment: environment.merging(extra) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    }

    /// Each origin of each setting, in the one order: the defaults, then a file, then the
    /// environment over it, then the flags over everything.
    @Test func eachSettingTakesTheFlagElseTheEnvironmentElseTheFileElseTheDefault() async throws {
        let defaults = try await config()
        #expect(
            defaults.settings.map(\.name) == [
                "file", "home", "nodes", "nethash", "proxy", "service", "service.address", "service.publicKey",
                "account", "passphrase", "notify", "open", "preview", "mute", "quiet", "quietMode", "kinds",
            ])
        #expect(
            defaults["preview"]?.value == .text("full") && defaults["mute"]?.value == .list([])
                && defaults["quiet"]?.value == Value.none)
        #expect(
            defaults["quietMode"]?.value == .text("silent")
                && defaults["kinds"]?.value == .list(["messages", "reactions", "transfers"]))
        #expect(defaults["notify"]?.value == .text("false") && defaults["notify"]?.origin == "default")
        #expect(defaults["account"]?.value == Value.none)
        #expect(defaults["passphrase"]?.value == .text("the terminal (no keyring: no session bus)"))
        #expect(defaults["open"]?.value == .text(#"xdg-open "$ADM_CHAT_URL""#) && defaults["open"]?.origin == "default")
        #expect(defaults["file"]?.value == .text(configPath) && defaults["file"]?.exists == false)
        #expect(defaults["file"]?.origin == "env" && defaults["file"]?.source == "XDG_CONFIG_HOME")
        #expect(
            defaults["home"]?.value == .text(folder + "/user/.local/state/adm-push")
                && defaults["home"]?.origin == "default")
        #expect(defaults["home"]?.source == nil)
        guard case .list(let builtIn)? = defaults["nodes"]?.value else {
            Issue.record("nodes is not a list")
            return
        }
        #expect(
            builtIn.count == 18 && builtIn.first == "https://clown.adamant.im" && defaults["nodes"]?.origin == "default"
        )
        #expect(defaults["nethash"]?.value == .text("bd330166898377fb28743ceef5e43a5d9d0a3efd9b3451fb7bc53530bb0a6d64"))
        #expect(defaults["nethash"]?.origin == "default")
        #expect(defaults["service.address"]?.value == .text(NotificationService.adamantIOS.address.description))
        #expect(defaults["service.publicKey"]?.value == .text(NotificationService.adamantIOS.publicKey.hex))
        #expect(defaults["service.address"]?.origin == "default" && defaults["service.publicKey"]?.origin == "default")
        #expect(defaults["service"]?.value == .text("ans") && defaults["service"]?.origin == "default")
        let state = try await config(extra: ["XDG_STATE_HOME": folder + "/state"])
        #expect(state["home"]?.value == .text(folder + "/state/adm-push") && state["home"]?.origin == "default")

        try write(
            """
            {
              "nodes": ["http://127.0.0.1:1", "http://127.0.0.1:2"],
              "nethash": "\(Self.fileNethash)",
              "home": "~/from-file",
              "service": \(serviceJSON(Self.fileService)),
              "notify": true,
              "open": "browser",
              "preview": "sender",
              "mute": ["U10629337621822775991", {"address": "U8916295525136600565", "until": "2026-12-24T18:00:00Z"}],
              "quiet": "22:00-07:00",
              "quietMode": "hold",
              "kinds": ["transfers"]
            }
            """)
        let file = try await config(extra: ["XDG_STATE_HOME": folder + "/state"])
        #expect(file["file"]?.exists == true)
        #expect(file["home"]?.value == .text(folder + "/user/from-file"))
        #expect(file["nodes"]?.value == .list(["http://127.0.0.1:1", "http://127.0.0.1:2"]))
        #expect(file["nethash"]?.value == .text(Self.fileNethash))
        #expect(file["service.address"]?.value == .text(Self.fileService.address.description))
        #expect(file["service.publicKey"]?.value == .text(Self.fileService.publicKey.hex))
        #expect(file["notify"]?.value == .text("true") && file["open"]?.value == .text("browser"))
        #expect(
            file["preview"]?.value == .text("sender") && file["quiet"]?.value == .text("22:00-07:00")
                && file["quietMode"]?.value == .text("hold"))
        #expect(
            file["mute"]?.value == .list(["U10629337621822775991", "U8916295525136600565 until 2026-12-24T18:00:00Z"]))
        #expect(file["kinds"]?.value == .list(["transfers"]))
        for name in [
            "home", "nodes", "nethash", "service.address", "service.publicKey", "notify", "open", "preview", "mute",
            "quiet", "quietMode", "kinds",
        ] {
            #expect(file[name]?.origin == "file" && file[name]?.source == configPath, "\(name)")
        }

        let env = try await config(extra: ["ADM_PUSH_HOME": folder + "/env-home", "ADM_NODES": "http://127.0.0.1:3"])
        #expect(
            env["home"]?.value == .text(folder + "/env-home") && env["home"]?.origin == "env"
                && env["home"]?.source == "ADM_PUSH_HOME")
        #expect(
            env["nodes"]?.value == .list(["http://127.0.0.1:3"]) && env["nodes"]?.origin == "env"
                && env["nodes"]?.source == "ADM_NODES")
        // The file's nethash goes with the file's nodes: other nodes follow their majority.
        #expect(env["nethash"]?.value == Value.none && env["nethash"]?.origin == "default")
        #expect(env["service.address"]?.origin == "file")

        let flags = try await config(
            [
                "--home", folder + "/flag-home", "--node", "http://127.0.0.1:4", "--nethash", Self.flagNethash,
                "--service-address", Self.flagService.address.description, "--service-public-key",
                Self.flagService.publicKey.hex,
                "--notify", "--open", "other browser", "--preview", "none", "--mute", "U5517006347330072401", "--quiet",
                "12:00-13:00",
                "--quiet-mode", "silent", "--kinds", "messages,reactions",
            ],
            extra: ["ADM_PUSH_HOME": folder + "/env-home", "ADM_NODES": "http://127.0.0.1:3"])
        #expect(flags["home"]?.value == .text(folder + "/flag-home") && flags["home"]?.source == "--home")
        #expect(flags["nodes"]?.value == .list(["http://127.0.0.1:4"]) && flags["nodes"]?.source == "--node")
        #expect(flags["nethash"]?.value == .text(Self.flagNethash) && flags["nethash"]?.source == "--nethash")
        #expect(
            flags["service.address"]?.value == .text(Self.flagService.address.description)
                && flags["service.address"]?.source == "--service-address")
        #expect(
            flags["service.publicKey"]?.value == .text(Self.flagService.publicKey.hex)
                && flags["service.publicKey"]?.source == "--service-public-key")
        #expect(flags["notify"]?.value == .text("true") && flags["notify"]?.source == "--notify")
        #expect(flags["open"]?.value == .text("other browser") && flags["open"]?.source == "--open")
        #expect(
            flags["preview"]?.value == .text("none") && flags["quiet"]?.value == .text("12:00-13:00")
                && flags["quietMode"]?.value == .text("silent"))
        #expect(flags["kinds"]?.value == .list(["messages", "reactions"]))
        // --mute adds to the file's list, and each entry says where it came from.
        #expect(
            flags.settings.filter { $0.name == "mute" }.map { [$0.value, .text($0.origin)] } == [
                [.list(["U10629337621822775991", "U8916295525136600565 until 2026-12-24T18:00:00Z"]), .text("file")],
                [.list(["U5517006347330072401"]), .text("flag")],
            ])
        #expect(
            [
                "home", "nodes", "nethash", "service.address", "service.publicKey", "notify", "open", "preview",
                "quiet", "quietMode", "kinds",
            ]
            .allSatisfy { flags[$0]?.origin == "flag" })
        // A partner muted by both is muted by the flag, for good; the table says so.
        let text = try await run(
            "adm-push", ["config", "--mute", "U10629337621822775991", "--mute", "U5517006347330072401"],
            environment: environment.merging(["XDG_STATE_HOME": folder + "/state"]) { $1 })
        let muteLines = text.stdout.split(separator: "\n").filter { $0.hasPrefix("mute ") }.map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(
            muteLines == [
                "mute U8916295525136600565 until 2026-12-24T18:00:00Z (file \(configPath))",
                "mute U10629337621822775991, U5517006347330072401 (flag --mute)",
            ], "\(text.stdout)")

        // The file's nethash pins the built-in list too, and --nethash beats it.
        try write(#"{"nethash": "\#(Self.fileNethash)"}"#)
        #expect(try await config()["nethash"]?.value == .text(Self.fileNethash))
        #expect(try await config(["--nethash", Self.flagNethash])["nethash"]?.origin == "flag")
    }

    /// The proxy takes the one precedence; left unset, the row says what libcurl's variables
    /// make of the nodes, and a bad value is refused by name wherever it comes from.
    @Test func theProxyTakesTheOnePrecedenceAndNamesTheEnvironmentsVariables() async throws {
        let nodes = ["--node", "https://node.example"]
        func proxy(_ arguments: [String], extra: [String: String] = [:]) async throws -> (Value?, String?) {
            let entry = try await config(nodes + arguments, extra: extra)["proxy"]
            return (entry?.value, entry?.origin)
        }
        #expect(try await proxy([]) == (.text("none"), "default"))
        #expect(
            try await proxy([], extra: ["https_proxy": "socks5h://127.0.0.1:9050"])
                == (.text("as the environment says: via socks5h://127.0.0.1:9050 (https_proxy)"), "env"))
        try write(#"{"proxy": "socks5h://127.0.0.1:9150"}"#)
        #expect(try await proxy([]) == (.text("socks5h://127.0.0.1:9150"), "file"))
        #expect(try await proxy([], extra: ["ADM_PROXY": "none"]) == (.text("none"), "env"))
        #expect(
            try await proxy(["--proxy", "http://127.0.0.1:8118"], extra: ["ADM_PROXY": "none"]) == (
                .text("http://127.0.0.1:8118"), "flag"
            ))

        let badFlag = try await run("adm-push", ["config", "--proxy", "tor"], environment: environment)
        #expect(
            badFlag.status == 64 && badFlag.stderr.hasPrefix("Error: --proxy: 'tor' is not a proxy URL"),
            "\(badFlag.stderr)")
        let badVariable = try await run(
            "adm-push", ["config"], environment: environment.merging(["ADM_PROXY": "socks4://x:1"]) { $1 })
        #expect(
            badVariable.status == 64 && badVariable.stderr.hasPrefix("Error: ADM_PROXY: 'socks4://x:1' has a scheme"),
            "\(badVariable.stderr)")
        try write(#"{"proxy": "me:pw@127.0.0.1"}"#)
        let badFile = try await run("adm-push", ["config"], environment: environment)
        #expect(
            badFile.status == 64 && badFile.stderr.contains("proxy") && badFile.stderr.contains(configPath),
            "\(badFile.stderr)")
    }

    /// The built-in list, through a proxy that resolves names, has ADAMANT's onion services too.
    @Test func throughTorTheBuiltInListHasTheOnionServices() async throws {
        func onions(_ arguments: [String]) async throws -> Int {
            guard case .list(let nodes)? = try await config(arguments)["nodes"]?.value else { return -1 }
            return nodes.count { $0.hasSuffix(".onion") }
        }
        #expect(try await onions([]) == 0)
        #expect(try await onions(["--proxy", "socks5://127.0.0.1:9050"]) == 0)
        #expect(try await onions(["--proxy", "socks5h://127.0.0.1:9050"]) == 5)
        #expect(
            try await onions(["--proxy", "socks5h://127.0.0.1:9050", "--node", "https://node.example"]) == 0,
            "only the built-in list")
    }

    /// The service's kind comes from --service, else the file, and brings its own identity; an
    /// identity written for one kind never serves the other, while the flags' identity takes the
    /// kind chosen.
    @Test func theServiceKindComesFromTheFlagElseTheFileWithItsOwnIdentity() async throws {
        try write(#"{"service": "ns"}"#)
        let file = try await config()
        #expect(file["service"]?.value == .text("ns") && file["service"]?.origin == "file")
        #expect(file["service.address"]?.value == .text(NotificationService.adamantNS.address.description))
        #expect(file["service.publicKey"]?.value == .text(NotificationService.adamantNS.publicKey.hex))
        let flag = try await config(["--service", "ans"])
        #expect(flag["service"]?.value == .text("ans") && flag["service"]?.origin == "flag")
        #expect(flag["service.address"]?.value == .text(NotificationService.adamantIOS.address.description))

        try write(
            #"{"service": {"address": "\#(Self.flagService.address)", "publicKey": "\#(Self.flagService.publicKey.hex)"}}"#
        )
        let ans = try await config()
        #expect(ans["service"]?.value == .text("ans") && ans["service.address"]?.origin == "file")
        let ns = try await config(["--service", "ns"])
        #expect(ns["service.address"]?.value == .text(NotificationService.adamantNS.address.description))
        #expect(ns["service.address"]?.origin == "flag")

        try write(
            #"{"service": {"kind": "ns", "address": "\#(Self.flagService.address)", "publicKey": "\#(Self.flagService.publicKey.hex)"}}"#
        )
        let own = try await config()
        #expect(own["service"]?.value == .text("ns") && own["service"]?.origin == "file")
        #expect(own["service.address"]?.value == .text(Self.flagService.address.description))

        try write(#"{"service": "nss"}"#)
        let wrong = try await run("adm-push", ["config"], environment: environment)
        #expect(wrong.status == 64 && wrong.stderr.contains(#"must be "ans", "ns" or an object"#), "\(wrong.stderr)")
    }

    @Test func theTextFormAlignsValuesAndSaysEachOrigin() async throws {
        try write(#"{"nodes": ["http://127.0.0.1:1"], "home": "/srv/adm"}"#)
        let result = try await run(
            "adm-push", ["config", "--home", folder + "/h"],
            environment: environment.merging(["ADM_NODES": "http://127.0.0.1:2"]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 17)
        #expect(
            lines[0].hasPrefix("file               \(configPath)  ") && lines[0].hasSuffix("  (env XDG_CONFIG_HOME)"),
            "\(lines[0])")
        #expect(
            lines[1].hasPrefix("home               \(folder)/h  ") && lines[1].hasSuffix("  (flag --home)"),
            "\(lines[1])")
        #expect(
            lines[2].hasPrefix("nodes              http://127.0.0.1:2  ") && lines[2].hasSuffix("  (env ADM_NODES)"),
            "\(lines[2])")
        #expect(
            lines[3].hasPrefix("nethash            any (the majority's network)  ") && lines[3].hasSuffix("  (default)")
        )
        #expect(lines[4].hasPrefix("proxy              none  ") && lines[4].hasSuffix("  (default)"), "\(lines[4])")
        #expect(lines[5].hasPrefix("service            ans  ") && lines[5].hasSuffix("  (default)"), "\(lines[5])")
        #expect(lines[6].hasPrefix("service.address    U10629337621822775991  ") && lines[6].hasSuffix("  (default)"))
        // The origins start in one column.
        #expect(
            Set(lines.map { $0.range(of: "  (", options: .backwards)?.lowerBound.utf16Offset(in: $0) }).count == 1,
            "\(result.stdout)")
    }

    /// A key the file should not have is refused by name, by `config` and by a command that
    /// needs the file (here for its service), before anything is written.
    @Test func anUnknownKeyIsAnErrorNamingTheKeyAndTheFile() async throws {
        try write(#"{"nodez": ["http://127.0.0.1:1"], "home": "/srv/adm"}"#)
        let message =
            "Error: unknown key 'nodez' in \(configPath) (known: nodes, nethash, proxy, home, service, account, accounts, notify, open, preview, mute, quiet, quietMode, kinds)"
        let config = try await run("adm-push", ["config"], environment: environment)
        #expect(config.status == 64 && config.stderr == message + "\n" && config.stdout.isEmpty, "\(config.stderr)")

        let home = folder + "/home"
        let passphrase = ["ADM_PASSPHRASE": BIP39.randomMnemonic()]
        let register = try await run(
            "adm-push",
            [
                "register", "--token", String(repeating: "c3", count: 32), "--provider", "apns", "--home", home,
                "--node", "http://127.0.0.1:1",
            ],
            environment: environment.merging(passphrase) { $1 })
        #expect(register.status == 64 && register.stderr.hasPrefix(message + "\n"), "\(register.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home), "nothing written")
    }

    /// `watch` reports a broken file before it asks for the passphrase: with no passphrase
    /// given and no terminal, the file's error is the one said.
    @Test func watchReportsTheFileBeforeAskingForThePassphrase() async throws {
        try write(#"{"nodez": ["http://127.0.0.1:1"]}"#)
        let watch = try await run("adm-fetch", ["watch"], environment: environment)
        #expect(watch.status == 64, "\(watch.stderr)")
        #expect(watch.stderr.hasPrefix("Error: unknown key 'nodez' in \(configPath)"), "\(watch.stderr)")
    }

    /// With every setting given otherwise, a command never reads the file, however broken;
    /// one setting left to it, and the file is read and refused.
    @Test func theFileIsReadOnlyWhenASettingNeedsIt() async throws {
        try write("not json")
        let passphrase = BIP39.randomMnemonic()
        // The account is a setting too: the passphrase is checked to be the chosen one's.
        let account = KeyPair(passphrase: try Passphrase(validating: passphrase)).address.description
        let given = [
            "--home", folder + "/home", "--node", "http://127.0.0.1:1", "--proxy", "none",
            "--service", "ans", "--service-address", Self.flagService.address.description, "--service-public-key",
            Self.flagService.publicKey.hex, "--account", account,
        ]
        let environment = environment.merging(["ADM_PASSPHRASE": passphrase]) { $1 }
        let queue = try await run("adm-push", ["queue", "--json"] + given, environment: environment)
        #expect(queue.status == 0, "\(queue.stderr)")
        let needed = try await run("adm-push", ["queue", "--json"] + given.dropFirst(2), environment: environment)
        #expect(
            needed.status == 64
                && needed.stderr.hasPrefix("Error: the config file has an error at \(configPath):1:1: "),
            "\(needed.stderr)")
    }

    /// A file others may write could send the outbox to their nodes and home: every command
    /// refuses it with exit 64 and the fix, and nothing is created at the home it names.
    @Test func aFileOthersCanWriteIsRefusedByEveryCommand() async throws {
        try write(#"{"home": "\#(folder)/planted"}"#)
        #expect(chmod(configPath, 0o666) == 0)
        let environment = environment.merging([
            "ADM_PASSPHRASE": BIP39.randomMnemonic(), "ADM_NODES": "http://127.0.0.1:1",
        ]) { $1 }
        for arguments in [
            ["config"], ["status"],
            ["register", "--token", String(repeating: "ab", count: 32), "--provider", "fcm", "--no-wait"],
        ] {
            let result = try await run("adm-push", arguments, environment: environment)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("lets others change it; run chmod go-w '\(configPath)'"), "\(result.stderr)")
        }
        let watch = try await run("adm-fetch", ["watch"], environment: environment)
        #expect(watch.status == 64 && watch.stderr.contains("chmod go-w"), "\(watch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/planted"))
    }

    @Test func aMalformedFileNamesTheLine() async throws {
        try write(
            """
            {
              "nodes": ["http://127.0.0.1:1"],
              "home": /srv/adm
            }
            """)
        let result = try await run("adm-push", ["config"], environment: environment)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("Error: the config file has an error at \(configPath):3:11: expected a value"),
            "\(result.stderr)")
        let status = try await run(
            "adm-push", ["queue"], environment: environment.merging(["ADM_PASSPHRASE": BIP39.randomMnemonic()]) { $1 })
        #expect(status.status == 64 && status.stderr.contains("\(configPath):3:11"), "\(status.stderr)")
    }

    @Test func aWrongTypeNamesTheKey() async throws {
        try write(#"{"home": ["/srv/adm"]}"#)
        let result = try await run("adm-push", ["config"], environment: environment)
        #expect(
            result.status == 64 && result.stderr == "Error: 'home' in \(configPath) must be a string\n",
            "\(result.stderr)")
    }

    /// As with the flags, a key that does not hash to the address is refused.
    @Test func aServiceInTheFileWhoseKeyIsAnotherAccountsIsRefused() async throws {
        try write(
            #"{"service": {"address": "\#(Self.fileService.address)", "publicKey": "\#(Self.flagService.publicKey.hex)"}}"#
        )
        let result = try await run("adm-push", ["config"], environment: environment)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: 'service' in \(configPath) is inconsistent: the service public key belongs to \(Self.flagService.address), not \(Self.fileService.address)"
            ),
            "\(result.stderr)")
    }

    /// The file's nodes, home and service, used for real: the ANS emulator decrypts the
    /// registration only if it was encrypted to its own key, and the outbox is in the file's home.
    @Test func registerUsesTheFilesNodesHomeAndService() async throws {
        let network = try OutboxDevnet()
        try write(
            """
            {"nodes": [\(network.devnet.nodeURLs.map { "\"\($0)\"" }.joined(separator: ", "))], "home": "~/adm-home",
             "service": \(serviceJSON(try NotificationService(address: network.devnet.ans.address, publicKey: network.devnet.ans.publicKey)))}
            """)
        let environment = environment.merging(["ADM_PASSPHRASE": network.passphrase]) { $1 }
        let token = String(repeating: "e5", count: 32)
        let register = try await run(
            "adm-push", ["register", "--token", token, "--provider", "apns"], environment: environment, timeout: 60)
        #expect(register.status == 0, "\(register.stderr)")
        network.settle()
        #expect(network.registered == [token])
        #expect(FileManager.default.fileExists(atPath: folder + "/user/adm-home/outbox.sqlite"))

        let queue = try await run("adm-push", ["queue", "--json"], environment: environment)
        struct Queue: Decodable {
            struct Intent: Decodable {
                let action: String
                let state: String
            }
            let intents: [Intent]
        }
        let intents = try JSONDecoder().decode(Queue.self, from: Data(queue.stdout.utf8)).intents
        #expect(
            intents.map(\.action) == ["add"] && intents.first?.state.hasPrefix("applied") == true, "\(queue.stdout)")
    }
}

extension NotificationService {
    fileprivate static func of(_ keys: KeyPair) throws -> NotificationService {
        try NotificationService(address: keys.address, publicKey: keys.publicKey)
    }
}
