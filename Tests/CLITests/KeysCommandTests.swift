import AdamantCLI
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `adm-push keys`, run as a real process.
@Suite("adm-push keys", .timeLimit(.minutes(1)))
final class KeysCommandTests {
    static let passphrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
    static let expected =
        #"{"address":"U6687642817984673870","publicKey":"7db9b51bc75fed7b8e631e2efaad38305b12c6b3d3d9f6af3498fdcb7b35c284"}"#

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("adm-push-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func file(_ contents: String, mode: Int) throws -> String {
        let path = folder.appendingPathComponent(UUID().uuidString).path
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
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
        let privateFile = try file(Self.passphrase + "\n", mode: 0o600)
        let ok = try await run("adm-push", ["keys", "--json", "--passphrase-file", privateFile])
        #expect(ok.status == 0 && ok.stdout == Self.expected + "\n")

        let shared = try file(Self.passphrase, mode: 0o644)
        let refused = try await run("adm-push", ["keys", "--passphrase-file", shared])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "Error: refusing --passphrase-file '\(shared)': mode 644 lets others read it; run chmod 600 '\(shared)'\n"
        )
    }

    /// A FIFO (or a directory, or a device) is refused at once: opening a FIFO used to wait
    /// forever for a writer.
    @Test func refusesAnythingButARegularFile() async throws {
        let fifo = folder.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, folder.path, "/dev/zero"] {
            let result = try await run("adm-push", ["keys", "--passphrase-file", path], timeout: 10)
            #expect(!result.timedOut, "\(path)")
            #expect(result.status == 64)
            #expect(result.stderr == "Error: --passphrase-file '\(path)' is not a regular file\n")
        }
    }

    /// A huge file is refused by its size, without reading it.
    @Test func refusesAFileTooLargeToBeAPassphrase() async throws {
        let path = try file("", mode: 0o600)
        try #require(truncate(path, 1 << 40) == 0)  // sparse: a terabyte that takes no disk
        let result = try await run("adm-push", ["keys", "--passphrase-file", path], timeout: 10)
        #expect(result.status == 64)
        #expect(result.stderr == "Error: --passphrase-file '\(path)' is too large to hold a passphrase\n")
    }

    @Test func anInvalidPassphraseIsExplainedWithoutBeingRepeated() async throws {
        let wrongChecksum = "wrap track hamster grocery casual talk theory half artist toast art art"
        let result = try await run("adm-push", ["keys"], environment: ["ADM_PASSPHRASE": wrongChecksum])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: invalid passphrase: the passphrase fails its BIP39 checksum"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        for word in ["hamster", "grocery", "casual", "theory", "artist", "toast"] {
            #expect(!result.stderr.contains(word))
        }
    }

    /// No word of a passphrase reaches stderr, not even a corrected one: a typo, words given as
    /// arguments anywhere, or an unquoted `adm-devnet --account` value.
    @Test func noWordOfAPassphraseIsEverPrinted() async throws {
        let words = Self.passphrase.split(separator: " ").map(String.init)
        let typo = Self.passphrase.replacingOccurrences(of: "hamster", with: "hamstr")
        let runs = [
            try await run("adm-push", ["keys"], environment: ["ADM_PASSPHRASE": typo]),
            try await run("adm-push", ["keys"] + words),
            try await run("adm-devnet", ["start", "--account", typo + "=1"]),
            try await run("adm-devnet", ["start", "--account"] + words.dropLast() + [words.last! + "=1"]),
            try await run("adm-push", words),
            try await run("adm-push", [Self.passphrase]),
            try await run("adm-push", ["help", "keys"] + words),
            try await run("adm-push", ["nodes", "--node", "http://127.0.0.1:1"] + words),
            try await run("adm-devnet", ["demo"] + words),
        ]
        for result in runs {
            #expect(result.status == 64)
            let printed = Set(result.stderr.split { !$0.isLetter }.map { $0.lowercased() })
            #expect(printed.isDisjoint(with: words + ["hamstr"]), "\(result.stderr)")
        }
        #expect(
            runs[0].stderr
                == "Error: invalid passphrase: word 3 of the passphrase is not in the BIP39 English list: check its spelling (lowercase a-z)\n"
        )
        #expect(
            runs[4].stderr == """
                Error: unknown command (withheld: resembles a passphrase, which is not an argument)
                  See 'adm-push --help' for the commands.

                """)
        #expect(
            runs[1].stderr == """
                Error: keys takes no arguments (the passphrase is never an argument)
                Usage: adm-push keys [--passphrase-file <path>] [--account <U…>] [--json]
                  See 'adm-push keys --help' for more information.

                """)
    }

    @Test func refusesToRunWithoutAPassphraseSource() async throws {
        let result = try await run("adm-push", ["keys"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: no passphrase: none given by --passphrase-file or ADM_PASSPHRASE, no terminal to ask on, and the keyring cannot be reached (no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set (is this a desktop session?)); store it once with 'adm-push login' in the desktop session, or give --passphrase-file PATH (mode 600) or ADM_PASSPHRASE\n"
        )
    }

    @Test func helpAndUsageErrors() async throws {
        let help = try await run("adm-push", ["keys", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: adm-push keys") && help.stdout.contains("EXIT CODES:"))

        let typo = try await run("adm-push", ["keys", "--jsn"])
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("Error: unknown option '--jsn' (did you mean '--json'?)\nUsage: adm-push keys"))

        let command = try await run("adm-push", ["kyes"])
        #expect(
            command.status == 64 && command.stderr.hasPrefix("Error: unknown command 'kyes' (did you mean 'keys'?)"))
    }
}
