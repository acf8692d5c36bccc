import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Output that cannot be written is a failure (exit 74), never a silent success.
@Suite("write failures", .timeLimit(.minutes(1)))
struct WriteFailureTests {
    static let environment = ["ADM_PASSPHRASE": KeysCommandTests.passphrase]

    @Test func aFullDiskIsAnError() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let keys = try await run("adm-push", ["keys", "--json"], environment: Self.environment, standardOutput: full)
        #expect(keys.status == 74)
        #expect(keys.stderr == "Error: cannot write to standard output: No space left on device\n")

        let help = try await run("adm-push", ["--help"], standardOutput: full)
        #expect(help.status == 74)
        #expect(help.stderr == "Error: cannot write to standard output: No space left on device\n")
    }

    /// A reader that went away (`| head`): exit 74 as well, but nothing to say about it.
    @Test func aClosedPipeIsAnErrorTooButQuietly() async throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let keys = try await run(
            "adm-push", ["keys"], environment: Self.environment, standardOutput: pipe.fileHandleForWriting)
        #expect(keys.status == 74)
        #expect(keys.stderr.isEmpty)
    }

    /// An error that cannot be printed keeps its own exit code.
    @Test func anUnwritableErrorKeepsItsExitCode() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let typo = try await run("adm-push", ["keys", "--jsn"], standardError: full)
        #expect(typo.status == 64 && typo.stdout.isEmpty)
    }
}
