import Foundation
import Testing

/// `adm-bench`'s command line: help, and no silently skipped benchmark. Nothing is measured here.
@Suite("adm-bench", .timeLimit(.minutes(1)))
struct BenchCommandTests {
    @Test func helpListsTheBenchmarks() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let help = try await run("adm-bench", arguments)
            #expect(help.status == 0 && help.stderr.isEmpty)
            #expect(help.stdout.contains("\nUSAGE: adm-bench [<benchmark> ...]\n"), "\(help.stdout)")
            for name in ["keys", "verify-decrypt", "read"] { #expect(help.stdout.contains("\n  \(name) ")) }
        }
    }

    @Test func anUnknownBenchmarkIsAUsageErrorAndNothingRuns() async throws {
        let typo = try await run("adm-bench", ["keys", "kyes"])
        #expect(typo.status == 64 && typo.stdout.isEmpty)
        #expect(typo.stderr == """
            Error: unknown benchmark 'kyes' (did you mean 'keys'?)
            Usage: adm-bench [<benchmark> ...]
              See 'adm-bench --help' for the benchmarks.

            """)

        let option = try await run("adm-bench", ["--fast"])
        #expect(option.status == 64 && option.stdout.isEmpty)
        #expect(option.stderr.hasPrefix("Error: unknown option '--fast'\n"))
    }
}
