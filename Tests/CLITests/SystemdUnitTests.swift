import AdamantCore
import Foundation
import KeyringTestSupport
import Testing

/// The systemd user units of packaging/systemd. `systemd-analyze verify` runs without --user, so
/// no service manager is needed; it exits 0 on an unknown key and only warns on stderr, so an
/// empty stderr is what passing means here.
@Suite(
    "systemd units", .timeLimit(.minutes(2)),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
        "systemd-analyze is not installed (scripts/install-deps.sh installs systemd)"))
final class SystemdUnitTests {
    static let analyze = "/usr/bin/systemd-analyze"
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("packaging/systemd")
    static let units = ["adm-push-flush.service", "adm-push-flush.timer", "adm-fetch-watch.service"]

    /// The units, their /usr/bin commands replaced by the built ones (verify wants them to exist).
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for unit in Self.units {
            var text = try String(contentsOf: Self.source.appendingPathComponent(unit), encoding: .utf8)
            for tool in ["adm-push", "adm-fetch"] {
                text = text.replacingOccurrences(of: "/usr/bin/\(tool) ", with: Binaries.url(tool).path + " ")
            }
            try text.write(to: folder.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// verify on `unit` in the folder; --man=no since the pages are not installed here
    /// (scripts/check-deb verifies the installed units with them).
    func verify(_ unit: String) async throws -> RunResult {
        try await run(
            Self.analyze, ["verify", "--man=no", folder.appendingPathComponent(unit).path],
            environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test(arguments: units)
    func verifyPassesWithNothingOnStderr(_ unit: String) async throws {
        let result = try await verify(unit)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(unit): \(result.stderr)")
    }

    /// What the test above rests on: a misspelt key gets a warning and exit 0.
    @Test func aMisspeltKeyIsSeenOnStderr() async throws {
        let text = try String(contentsOf: folder.appendingPathComponent("adm-push-flush.service"), encoding: .utf8)
        try text.replacingOccurrences(of: "NoNewPrivileges=", with: "NoNewPrivilege=").write(
            to: folder.appendingPathComponent("typo.service"), atomically: true, encoding: .utf8)
        let result = try await verify("typo.service")
        #expect(result.stderr.contains("Unknown key 'NoNewPrivilege'"), "\(result.stderr)")
    }

    /// Each service's ExecStart=, split as systemd does, parses as the tool's command line (a
    /// misspelt option is exit 64), and names no passphrase: that is in the keyring.
    @Test(arguments: ["adm-push-flush.service", "adm-fetch-watch.service"])
    func execStartIsACommandLineTheToolAccepts(_ unit: String) async throws {
        let text = try String(contentsOf: Self.source.appendingPathComponent(unit), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }
        try #require(lines.count == 1)
        #expect(!text.contains("\nLoadCredential") && !text.contains("\nEnvironment"))
        let words = Self.systemdWords(String(lines[0].dropFirst("ExecStart=".count)), variables: [:])
        #expect(!words.contains { $0.contains("passphrase") }, "\(words)")
        let tool = try #require(words.first.map { URL(fileURLWithPath: $0).lastPathComponent })
        let result = try await run(tool, Array(words.dropFirst()) + ["--help"])
        #expect(result.status == 0 && result.stdout.hasPrefix("OVERVIEW: "), "\(unit): \(result.stderr)")
    }

    /// Where there is no keyring, the units' comments say how to hand a file over as a
    /// credential: systemd writes it as the user's own file, mode 0400 and in a directory only
    /// the user can enter (write_credential in systemd's exec-credential.c); the passphrase
    /// check takes it.
    @Test func aCredentialAsSystemdWritesItIsAccepted() async throws {
        let credentials = folder.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(
            at: credentials, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = credentials.appendingPathComponent("passphrase").path
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(KeysCommandTests.passphrase.utf8), attributes: [.posixPermissions: 0o400])
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: credentials.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: credentials.path) }
        let result = try await run("adm-push", ["keys", "--json", "--passphrase-file", path])
        #expect(result.status == 0 && result.stdout == KeysCommandTests.expected + "\n", "\(result.stderr)")
    }

    /// The watch unit's command line, as systemd hands it over, against a devnet and a
    /// desktop whose keyring holds the passphrase (put there by `adm-push login`): each
    /// notification reaches the desktop's notification service.
    @Test(.timeLimit(.minutes(2)))
    func theWatchUnitsCommandNotifiesTheDesktopWithThePassphraseInTheKeyring() async throws {
        try await TestDesktop.with { desktop in
            try await TestKeyring.with(onBus: desktop.busAddress) { keyring in
                try await theWatchUnitsCommandNotifies(desktop, keyring)
            }
        }
    }

    private func theWatchUnitsCommandNotifies(_ desktop: TestDesktop, _ keyring: TestKeyring) async throws {
        let network = try await FetchDevnet()
        let login = try await run(
            "adm-push", ["login"],
            environment: keyring.environment.merging(["ADM_PASSPHRASE": network.outbox.passphrase]) { $1 })
        try #require(login.status == 0, "\(login.stderr)")
        let text = try String(
            contentsOf: Self.source.appendingPathComponent("adm-fetch-watch.service"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = Self.systemdWords(String(line.dropFirst("ExecStart=".count)), variables: [:])
        try #require(words.prefix(2) == ["/usr/bin/adm-fetch", "watch"])
        let watch = try await WatchProcess(
            network, Array(words.dropFirst(2)), name: "unit",
            environment: keyring.environment.merging(desktop.environment) { $1 }, givingPassphrase: false)
        _ = try await network.send("-u critical hi", from: network.friend, to: network.me)
        let deadline = ContinuousClock.now + .seconds(60)
        while try await desktop.displayedCount() < 1 {
            guard ContinuousClock.now < deadline else { throw DesktopFailure("no bubble:\n\(watch.stderr)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let result = try await watch.stop()
        #expect(result.status == 0, "\(watch.stderr)")
        let shown = try await desktop.shown()
        #expect(
            shown.count == 1 && shown.first?["body"] == "-u critical hi" && shown.first?["appname"] == "ADAMANT",
            "\(shown)")
    }

    /// An ExecStart= line as systemd splits it, for what the units use: words apart at blanks,
    /// '…' and "…" quoting, then `${NAME}` replaced and `$$` made `$` (systemd.service(5)).
    static func systemdWords(_ line: String, variables: [String: String]) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words.map { word in
            var expanded = ""
            var rest = Substring(word)
            while let dollar = rest.firstIndex(of: "$") {
                expanded += rest[..<dollar]
                rest = rest[rest.index(after: dollar)...]
                if rest.first == "$" {
                    expanded += "$"
                    rest = rest.dropFirst()
                } else if rest.first == "{", let close = rest.firstIndex(of: "}") {
                    expanded += variables[String(rest[rest.index(after: rest.startIndex)..<close])] ?? ""
                    rest = rest[rest.index(after: close)...]
                } else {
                    expanded += "$"
                }
            }
            return expanded + rest
        }
    }
}
