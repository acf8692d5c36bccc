import Foundation
import Testing

/// A command's cost is mostly its process start. This keeps what made it cheap:
/// the commands load no Foundation, not even FoundationEssentials (Foundation brings ICU and
/// CoreFoundation, the largest libraries of a cold start; FoundationEssentials 2 MiB of
/// resident memory and 1.7M instructions at every start).
@Suite("start cost")
struct StartCostTests {
    /// The shared libraries a built product loads, as `ldd` lists them.
    static func sharedLibraries(of product: String) async throws -> [String] {
        let result = try await run("/usr/bin/ldd", [Binaries.url(product).path])
        try #require(result.status == 0, "ldd: \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap {
            $0.split(whereSeparator: \.isWhitespace).first.map(String.init)
        }
    }

    #if os(Linux)
        @Test(arguments: ["adm-push", "adm-fetch"])
        func theCommandsLoadNoFoundation(_ product: String) async throws {
            let libraries = try await Self.sharedLibraries(of: product)
            #expect(libraries.contains { $0.hasPrefix("libsodium") }, "ldd's listing was not read: \(libraries)")
            let foundation = libraries.filter { $0.contains("Foundation") }
            #expect(foundation.isEmpty, "\(product) loads \(foundation)")
            #expect(
                !libraries.contains { $0.hasPrefix("libcurl") }, "\(product) links libcurl, so every start loads it")
        }

        /// libcurl and its 32 libraries are loaded by the first request, so a command that makes
        /// none never pays for them; one that makes a request still gets it (glibc's loader says
        /// what it opens under LD_DEBUG=files).
        @Test func libcurlIsLoadedByTheFirstRequestOnly() async throws {
            let environment = [
                "LD_DEBUG": "files", "ADM_PUSH_HOME": NSTemporaryDirectory() + "adm-start-cost-\(UUID())",
            ]
            let quiet = try await run("adm-push", ["--version"], environment: environment)
            #expect(quiet.status == 0 && quiet.stderr.contains("file=libsodium"), "\(quiet.stderr)")
            #expect(!quiet.stderr.contains("libcurl"))
            let asking = try await run(
                "adm-push", ["nodes", "--json", "--node", "http://127.0.0.1:9"], environment: environment)
            #expect(asking.stderr.contains("file=libcurl.so"), "\(asking.stderr)")
            #expect(
                asking.stdout.contains("Failed to connect to 127.0.0.1 port 9"),
                "libcurl made the request: \(asking.stdout)")
        }
    #endif
}
