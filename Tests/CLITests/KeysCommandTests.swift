import AdamantCLI
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `adm-push keys`, run as a real process.
@Suite("adm-push keys", .timeLimit(.minutes(1)))
struct KeysCommandTests {
    static let passphrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
    static let expected = #"{"address":"U6687642817984673870","publicKey":"7db9b51bc75fed7b8e631e2efaad38305b12c6b3d3d9f6af3498fdcb7b35c284"}"#

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-push-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func file(_ contents: String, mode: Int) throws -> String {
        let path = folder.appendingPathComponent(UUID().uuidString).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
        return path
    }

    @Test func printsTheAccountFromTheEnvironment() async throws {
        let result = try await run("adm-push", ["keys", "--json"], environment: ["ADM_PASSPHRASE": Self.passphrase])
        #expect(result.status == 0)
        #expect(result.stdout == Self.expected + "\n")
        #expect(result.stderr.isEmpty)

        let text = try await run("adm-push", ["keys"], environment: ["ADM_PASSPHRASE": Self.passphrase])
        #expect(text.stdout.contains("U6687642817984673870"))
    }

    /// A private file works, trailing newline and all; a file others can read is refused.
    @Test func readsOnlyAPrivatePassphraseFile() async throws {
        let private_ = try file(Self.passphrase + "\n", mode: 0o600)
        let ok = try await run("adm-push", ["keys", "--json", "--passphrase-file", private_])
        #expect(ok.status == 0 && ok.stdout == Self.expected + "\n")

        let shared = try file(Self.passphrase, mode: 0o644)
        let refused = try await run("adm-push", ["keys", "--passphrase-file", shared])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("Error: refusing --passphrase-file \(shared): mode 644 lets others read it; run chmod 600"))
    }

    @Test func anInvalidPassphraseIsExplainedWithoutBeingRepeated() async throws {
        let wrongChecksum = "wrap track hamster grocery casual talk theory half artist toast art art"
        let result = try await run("adm-push", ["keys"], environment: ["ADM_PASSPHRASE": wrongChecksum])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: invalid passphrase: the passphrase fails its BIP39 checksum"))
        for word in ["hamster", "grocery", "casual", "theory", "artist", "toast"] { #expect(!result.stderr.contains(word)) }
    }

    @Test func refusesToRunWithoutAPassphraseSource() async throws {
        let result = try await run("adm-push", ["keys"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: no passphrase: set ADM_PASSPHRASE"))
    }

    @Test func neverTakesThePassphraseAsAnArgument() async throws {
        let result = try await run("adm-push", ["keys", "wrap", "track"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("the passphrase is never an argument"))
        #expect(result.stderr.contains("See 'adm-push keys --help'"))
    }

    /// On a terminal it asks, with echo off: what is typed never appears on the screen.
    @Test func asksOnATerminalWithEchoOff() async throws {
        var master: Int32 = -1, replica: Int32 = -1
        try #require(openpty(&master, &replica, nil, nil, nil) == 0)
        let screen = master
        defer { close(screen) }
        let terminal = FileHandle(fileDescriptor: replica, closeOnDealloc: true)
        let typed = Self.passphrase
        let result = try await run("adm-push", ["keys", "--json"], standardInput: terminal) { _ in
            // Type only once echo is off (poll the terminal's state with a deadline).
            let deadline = Date().addingTimeInterval(10)
            var settings = termios()
            while Date() < deadline {
                if tcgetattr(screen, &settings) == 0, settings.c_lflag & tcflag_t(ECHO) == 0 { break }
                usleep(1_000)
            }
            _ = (typed + "\n").withCString { write(screen, $0, strlen($0)) }
        }
        #expect(result.status == 0)
        #expect(result.stdout == Self.expected + "\n")
        #expect(result.stderr.hasPrefix("Passphrase: "))

        var shown = [UInt8](repeating: 0, count: 4096)
        _ = fcntl(screen, F_SETFL, fcntl(screen, F_GETFL) | O_NONBLOCK)
        let count = read(screen, &shown, shown.count)
        #expect(!String(decoding: shown.prefix(max(count, 0)), as: UTF8.self).contains("hamster"))
    }

    @Test func helpAndUsageErrors() async throws {
        let help = try await run("adm-push", ["keys", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: adm-push keys") && help.stdout.contains("EXIT CODES:"))

        let typo = try await run("adm-push", ["keys", "--jsn"])
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("Error: unknown option '--jsn' (did you mean '--json'?)\nUsage: adm-push keys"))

        let command = try await run("adm-push", ["kyes"])
        #expect(command.status == 64 && command.stderr.hasPrefix("Error: unknown command 'kyes' (did you mean 'keys'?)"))
    }
}
