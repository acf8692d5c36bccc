import AdamantCore
import AdamantFetch
import AdamantNodes
import Foundation
import Testing

@testable import AdamantAccountCLI
@testable import AdamantCLI

/// The config file's parsing and checks, without processes.
@Suite struct ConfigFileTests {
    static let path = "/cfg/config.json"
    static let service = NotificationService.adamantIOS

    func parse(_ text: String) throws(ConfigFileError) -> ConfigFile {
        try ConfigFile(path: Self.path, contents: Array(text.utf8))
    }

    func problem(_ text: String) -> ConfigFileError? {
        do {
            _ = try parse(text)
            return nil
        } catch { return error }
    }

    @Test func everyKnownKeyIsRead() throws {
        let file = try parse(
            """
            {"nodes": ["https://a.example", "http://10.0.0.1:36666"], "nethash": "\(String(repeating: "ab", count: 32))",
             "home": "~/adm", "service": {"address": "\(Self.service.address)", "publicKey": "\(Self.service.publicKey.hex)"}}
            """)
        #expect(file.nodes == ["https://a.example", "http://10.0.0.1:36666"])
        #expect(file.nethash == String(repeating: "ab", count: 32))
        #expect(file.home == "~/adm" && file.service == Self.service)
        #expect(file.nodeSettings.nodes == file.nodes && file.nodeSettings.path == Self.path)
        let empty = try parse("{}")
        #expect(
            empty.nodes == nil && empty.nethash == nil && empty.home == nil && empty.service == nil
                && empty.accounts == nil)
        let accounts = try parse(
            #"{"account": "U1", "accounts": [{"passphraseFile": "~/a", "home": "/h/a"}, {"passphraseFile": "/b"}, {"account": "U2"}]}"#
        )
        #expect(
            accounts.accounts == [
                .init(passphrase: .file("~/a"), home: "/h/a"), .init(passphrase: .file("/b"), home: nil),
                .init(passphrase: .keyring(try Address("U2")), home: nil),
            ])
        #expect(accounts.account == (try Address("U1")))
        #expect(try accounts.expanded("~/a", key: "accounts[0].passphraseFile", environment: ["HOME": "/u"]) == "/u/a")
    }

    @Test func theDesktopKeysAreABooleanAndACommand() throws {
        let desktop = try parse(#"{"notify": true, "open": "firefox \"$ADM_CHAT_URL\""}"#)
        #expect(desktop.notify == true && desktop.open == #"firefox "$ADM_CHAT_URL""#)
        #expect(problem(#"{"notify": "yes"}"#)?.problem == .invalid(key: "notify", reason: "must be true or false"))
        #expect(problem(#"{"open": 1}"#)?.problem == .invalid(key: "open", reason: "must be a string"))
        #expect(
            problem(#"{"open": "  "}"#)?.problem
                == .invalid(key: "open", reason: "is empty: give a command, or leave the key out for xdg-open"))
    }

    @Test func theNotificationPolicyKeysAreCheckedWhole() throws {
        let alice = "U10629337621822775991"
        let bob = "U8916295525136600565"
        let policy = try parse(
            #"{"preview": "none", "mute": ["\#(alice)", {"address": "\#(bob)", "until": "2026-12-24T18:00:00Z"}], "quiet": "22:00-07:00", "quietMode": "hold", "kinds": ["messages", "reactions"]}"#
        )
        #expect(
            policy.preview == NotificationPolicy.Preview.none && policy.quietMode == .hold
                && policy.quiet?.description == "22:00-07:00")
        #expect(policy.kinds == [.messages, .reactions])
        let (a, b) = (try Address(alice), try Address(bob))
        #expect(policy.mute?[a] == .some(nil) && policy.mute?[b] == .some(1_798_135_200_000))
        #expect(
            problem(#"{"preview": "some"}"#)?.problem
                == .invalid(key: "preview", reason: #"must be "full", "sender" or "none", got 'some'"#))
        #expect(
            problem(#"{"mute": ["U1x"]}"#)?.problem
                == .invalid(key: "mute[0]", reason: #"is not an ADAMANT address: 'U1x'"#))
        #expect(
            problem(#"{"mute": [{"address": "\#(bob)", "until": "tomorrow"}]}"#)?.problem
                == .invalid(
                    key: "mute[0].until", reason: #"must be a UTC time as 2026-12-24T18:00:00Z, got 'tomorrow'"#))
        #expect(problem(#"{"mute": [{"address": "\#(bob)", "for": "1h"}]}"#)?.problem == .unknownKeys(["mute[].for"]))
        #expect(
            problem(#"{"mute": "\#(bob)"}"#)?.problem
                == .invalid(
                    key: "mute",
                    reason: #"must be a list of addresses, or of {"address": "U…", "until": "2026-12-24T18:00:00Z"}"#))
        #expect(
            problem(#"{"quiet": "22-07"}"#)?.problem
                == .invalid(key: "quiet", reason: #"must be local hours as "22:00-07:00", got '22-07'"#))
        #expect(
            problem(#"{"quietMode": "loud"}"#)?.problem
                == .invalid(key: "quietMode", reason: #"must be "silent" or "hold", got 'loud'"#))
        #expect(
            problem(#"{"kinds": []}"#)?.problem
                == .invalid(
                    key: "kinds",
                    reason:
                        #"is empty: list some of "messages", "transfers" and "reactions", or leave the key out for all"#
                ))
        #expect(
            problem(#"{"kinds": ["messages", "calls"]}"#)?.problem
                == .invalid(
                    key: "kinds",
                    reason: #"must list some of "messages", "transfers" and "reactions", got 'messages', 'calls'"#))
    }

    @Test(arguments: [
        "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-24 18:00:00Z", "2026-12-24T18:00:00",
        "1969-12-31T23:59:59Z", "2026-12-24T24:00:00Z", "+026-12-24T18:00:00Z",
    ])
    func aMomentThatIsNotAUTCTimeIsRefused(_ text: String) {
        #expect(UTCTime.unixMillis(text) == nil)
    }

    @Test func aUTCTimeRoundTrips() {
        for text in ["1970-01-01T00:00:00Z", "2024-02-29T12:34:56Z", "2026-12-24T18:00:00Z", "9999-12-31T23:59:59Z"] {
            #expect(UTCTime.unixMillis(text).map { UTCTime.text(unixMillis: $0) } == text)
        }
        #expect(UTCTime.unixMillis("2026-12-24T18:00:00Z") == 1_798_135_200_000)
    }

    @Test func unknownKeysAreErrorsNamingTheKeyAndTheFile() {
        #expect(
            problem(#"{"nodez": []}"#)?.description
                == "unknown key 'nodez' in /cfg/config.json (known: nodes, nethash, proxy, home, service, account, accounts, notify, open, preview, mute, quiet, quietMode, kinds)"
        )
        #expect(problem(#"{"theme": "dark", "colour": 1, "nodes": []}"#)?.problem == .unknownKeys(["colour", "theme"]))
        let nested = problem(#"{"service": {"address": "U1", "publicKey": "00", "name": "ANS"}}"#)
        #expect(
            nested?.description
                == "unknown key 'service.name' in /cfg/config.json (known: service.kind, service.address, service.publicKey)"
        )
        let account = problem(#"{"accounts": [{"passphrase": "x"}]}"#)
        #expect(
            account?.description
                == "unknown key 'accounts[].passphrase' in /cfg/config.json (known: accounts[].account, accounts[].passphraseFile, accounts[].home, accounts[].name)"
        )
    }

    /// The decoder gives no position; the line and column are the first character that is not
    /// JSON any more.
    @Test(arguments: [
        ("{\n  \"nodes\": [\"https://a.example\"],\n  \"nethash\": abc\n}", 3, 14, "expected a value"),
        ("{\n  \"nodes\": [\"https://a.example\"]\n  \"home\": \"/h\"\n}", 3, 3, "expected ',' or '}'"),
        ("{\"home\": \"/h\",\n,}", 2, 1, "expected a key in double quotes"),
        ("{\"nodes\": [\"https://a.example\" \"x\"]}", 1, 32, "expected ',' or ']'"),
        ("{\"home\": \"/tmp/é\" \"x\"}", 1, 19, "expected ',' or '}'"),
        ("{\"home\": \"/h\n\"}", 1, 13, "a control character in a string"),
        ("{\"home\": \"/h\\q\"}", 1, 14, "an unknown escape"),
        ("{\n\"nodes\": [\"a\"", 2, 14, "the text ends inside the JSON: expected ',' or ']'"),
        ("", 1, 1, "there is no JSON value"),
        ("{} {}", 1, 4, "more text after the JSON value"),
        ("nodes = [x]", 1, 1, "expected a value"),
        ("{\n  \"home\": \"/a\",\n  \"home\": \"/b\"\n}", 3, 3, "the key 'home' is given twice; keep one"),
        (
            "{\"service\": {\"address\": \"U1\", \"publicKey\": \"00\", \"address\": \"U2\"}}", 1, 50,
            "the key 'address' is given twice"
        ),
    ])
    func malformedJSONNamesTheLineAndColumn(_ text: String, _ line: Int, _ column: Int, _ reason: String) throws {
        let error = try #require(problem(text))
        guard case .malformed(let foundLine?, let foundColumn?, let said) = error.problem else {
            Issue.record("no position: \(error)")
            return
        }
        #expect(foundLine == line && foundColumn == column && said.hasPrefix(reason), "\(error)")
        #expect(
            error.description.hasPrefix("the config file has an error at /cfg/config.json:\(line):\(column): "),
            "\(error)")
    }

    /// No false alarm: valid JSON of every kind is read, and so are the trailing commas and the
    /// byte order mark `JSONDecoder` takes; nesting past the bound is named, never recursed into.
    @Test func validJSONIsNotAnError() throws {
        for text in [
            #"{"a": [1, -0.5, 2e10, 0, 1E-3, true, false, null, "\u00e9\n\"\\\/"], "b": {}, "c": []}"#, "\u{FEFF}{}",
            #"{"a": [1,], "b": {"c": 2,},}"#,
        ] {
            if case .malformed? = problem(text)?.problem { Issue.record("\(text) is JSON") }
        }
        #expect(try parse(#"{"nodes": ["https://a.example",], "home": "/h",}"#).nodes == ["https://a.example"])
        let deep = problem(#"{"nodes": "# + String(repeating: "[", count: 100_000))
        guard case .malformed(1?, 42?, let reason)? = deep?.problem else {
            Issue.record("\(String(describing: deep))")
            return
        }
        #expect(reason == "nested more than \(JSONValue.maximumDepth) deep")
    }

    @Test func aStringThatIsNotUTF8IsNamedWhereItStarts() {
        do {
            _ = try ConfigFile(path: Self.path, contents: Array(#"{"home": "/h"#.utf8) + [0xFF] + Array(#""}"#.utf8))
            Issue.record("read")
        } catch {
            #expect(error.problem == .malformed(line: 1, column: 10, reason: "a string that is not UTF-8"))
        }
    }

    @Test(arguments: [
        (
            #"{"nodes": "https://a.example"}"#,
            "'nodes' in /cfg/config.json must be a list of node URLs in double quotes"
        ),
        (
            #"{"nodes": ["https://a.example", 3]}"#,
            "'nodes' in /cfg/config.json must be a list of node URLs in double quotes"
        ),
        (#"{"home": 3}"#, "'home' in /cfg/config.json must be a string"),
        (#"{"nethash": ["x"]}"#, "'nethash' in /cfg/config.json must be a string"),
        (
            #"{"service": "U1"}"#,
            #"'service' in /cfg/config.json must be "ans", "ns" or an object: {"address": "U…", "publicKey": "hex"}, got 'U1'"#
        ),
        (
            #"{"service": 7}"#,
            #"'service' in /cfg/config.json must be "ans", "ns" or an object: {"address": "U…", "publicKey": "hex"}"#
        ),
        (#"{"service": {"address": 1, "publicKey": "00"}}"#, "'service.address' in /cfg/config.json must be a string"),
        (#"{"service": {"address": "U1"}}"#, #"'service' in /cfg/config.json needs both "address" and "publicKey""#),
        (
            #"["https://a.example"]"#,
            #"the config file /cfg/config.json must hold one JSON object, such as {"nodes": ["https://…"]}"#
        ),
        (#"{"nethash": "abc"}"#, "'nethash' in /cfg/config.json is not a nethash (64 hex characters)"),
        (#"{"home": "adm"}"#, "'home' in /cfg/config.json must be an absolute path or start with ~/, got 'adm'"),
        (#"{"home": "~adm/x"}"#, "'home' in /cfg/config.json must be an absolute path or start with ~/, got '~adm/x'"),
        (
            #"{"home": "/tmp/x\u0000y"}"#,
            #"'home' in /cfg/config.json holds a NUL character, which no path can, got '/tmp/x\u{0}y'"#
        ),
        (
            #"{"accounts": {"passphraseFile": "/a"}}"#,
            #"'accounts' in /cfg/config.json must be a list of objects: {"account": "U…"} or {"passphraseFile": "/path"}, each with an optional "home""#
        ),
        (
            #"{"accounts": [{"home": "/h"}]}"#,
            #"'accounts[0]' in /cfg/config.json needs either "account" (its passphrase in the keyring) or "passphraseFile", not both"#
        ),
        (
            #"{"accounts": [{"account": "U1", "passphraseFile": "/a"}]}"#,
            #"'accounts[0]' in /cfg/config.json needs either "account" (its passphrase in the keyring) or "passphraseFile", not both"#
        ),
        (
            #"{"accounts": [{"account": "alice"}]}"#,
            "'accounts[0].account' in /cfg/config.json is not an ADAMANT address: 'alice'"
        ),
        (#"{"account": "U1x"}"#, "'account' in /cfg/config.json is not an ADAMANT address: 'U1x'"),
        (
            #"{"accounts": [{"passphraseFile": "/a"}, {"passphraseFile": "a"}]}"#,
            "'accounts[1].passphraseFile' in /cfg/config.json must be an absolute path or start with ~/, got 'a'"
        ),
        (
            #"{"accounts": [{"passphraseFile": "/a", "home": "h"}]}"#,
            "'accounts[0].home' in /cfg/config.json must be an absolute path or start with ~/, got 'h'"
        ),
    ])
    func wrongValuesNameTheKey(_ text: String, _ message: String) {
        #expect(problem(text)?.description == message)
    }

    /// As with the flags: a key that hashes to another address is refused, so a signal is
    /// never encrypted to anyone but the service named.
    @Test func theServiceKeyMustHashToItsAddress() throws {
        let other = KeyPair(passphrase: try Passphrase(validating: BIP39.randomMnemonic())).address
        let error = problem(#"{"service": {"address": "\#(other)", "publicKey": "\#(Self.service.publicKey.hex)"}}"#)
        #expect(
            error?.problem
                == .invalid(
                    key: "service",
                    reason:
                        "is inconsistent: \(SignalError.serviceKeyMismatch(expected: other, derived: Self.service.address))"
                ))
        #expect(
            error?.description.hasPrefix(
                "'service' in /cfg/config.json is inconsistent: the service public key belongs to \(Self.service.address)"
            ) == true)
        #expect(
            problem(#"{"service": {"address": "U1x", "publicKey": "00"}}"#)?.description.hasPrefix(
                "'service.address' in /cfg/config.json is not an ADAMANT address") == true)
        #expect(
            problem(#"{"service": {"address": "U1", "publicKey": "00"}}"#)?.description.hasPrefix(
                "'service.publicKey' in /cfg/config.json is not a public key") == true)
    }

    @Test func aHomeUnderTildeIsExpandedAgainstHOME() throws {
        #expect(try parse(#"{"home": "~/adm"}"#).homeDirectory(environment: ["HOME": "/home/u"]) == "/home/u/adm")
        #expect(try parse(#"{"home": "~"}"#).homeDirectory(environment: ["HOME": "/home/u"]) == "/home/u")
        #expect(try parse(#"{"home": "/srv/adm"}"#).homeDirectory(environment: [:]) == "/srv/adm")
        #expect(try parse("{}").homeDirectory(environment: ["HOME": "/home/u"]) == nil)
        #expect(
            throws: ConfigFileError(
                path: Self.path,
                problem: .invalid(
                    key: "home", reason: "starts with ~, but HOME is not an absolute path: write the whole path"))
        ) {
            try parse(#"{"home": "~/adm"}"#).homeDirectory(environment: ["HOME": "relative"])
        }
    }

    @Test func thePathFollowsXDGConfigHome() {
        #expect(
            ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/adm-push/config.json")
        #expect(
            ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
                == "/h/.config/adm-push/config.json")
        #expect(ConfigFile.defaultPath(environment: [:]) == nil)
    }

    @Test func loading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adm-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.json").path

        #expect(try ConfigFile.load(path: path) == nil)
        try Data(#"{"nodes":["http://127.0.0.1:36666"]}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try ConfigFile.load(path: path)?.nodes == ["http://127.0.0.1:36666"])
        try Data("nodes = [x]".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ConfigFileError.self) { try ConfigFile.load(path: path) }

        // Read once per command run, and only when asked.
        let source = ConfigFileSource(environment: ["XDG_CONFIG_HOME": directory.path + "/nothing-here"])
        #expect(try source.file() == nil)
    }

    /// A 2 GiB file (sparse, so the test is cheap) is refused unread, as is anything but a
    /// regular file: a FIFO would block the read forever.
    @Test(.timeLimit(.minutes(1))) func theFileIsCappedAndMustBeARegularFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adm-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let huge = directory.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: huge, contents: Data(#"{"nodes":["http://127.0.0.1:1"]}"#.utf8)))
        #expect(truncate(huge, 2 << 30) == 0)
        #expect(
            throws: ConfigFileError(
                path: huge, problem: .unreadable("is larger than 1 MiB; a config file is a few lines of JSON"))
        ) {
            try ConfigFile.load(path: huge)
        }

        let fifo = directory.appendingPathComponent("fifo.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ConfigFileError(path: fifo, problem: .unreadable("is not a regular file"))) {
            try ConfigFile.load(path: fifo)
        }
        #expect(throws: ConfigFileError(path: directory.path, problem: .unreadable("is not a regular file"))) {
            try ConfigFile.load(path: directory.path)
        }
    }

    /// The file names the nodes, the service and the home: one that another user could have
    /// written is refused, unread, with what to do.
    @Test func aFileOthersCouldWriteIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adm-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(#"{"home":"/tmp/elsewhere"}"#.utf8)))

        for mode: mode_t in [0o666, 0o620, 0o602] {
            #expect(chmod(path, mode) == 0)
            #expect(
                throws: ConfigFileError(
                    path: path,
                    problem: .unreadable(
                        "is refused: mode \(String(mode, radix: 8)) lets others change it; run chmod go-w '\(path)'"))
            ) {
                try ConfigFile.load(path: path)
            }
        }
        #expect(chmod(path, 0o644) == 0)
        #expect(try ConfigFile.load(path: path)?.home == "/tmp/elsewhere", "others may read it")
        guard geteuid() == 0 else { return }  // only root can give a file away
        #expect(chown(path, 65534, 65534) == 0)
        #expect(
            throws: ConfigFileError(
                path: path,
                problem: .unreadable(
                    "is refused: it belongs to uid 65534, not to you (uid 0); make it yours or remove it"))
        ) {
            try ConfigFile.load(path: path)
        }
    }
}
