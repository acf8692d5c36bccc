import Foundation
import Testing

/// A command's cost is mostly its process start (issue 10). This keeps what made it cheap:
/// the commands load no Foundation, not even FoundationEssentials (Foundation brings ICU and
/// CoreFoundation, the largest libraries of a cold start; FoundationEssentials 2 MiB of
/// resident memory and 1.7M instructions at every start).
@Suite("start cost")
struct StartCostTests {
    /// The shared libraries a built product loads, as `ldd` lists them.
    static func sharedLibraries(of product: String) async throws -> [String] {
        let result = try await run("/usr/bin/ldd", [Binaries.url(product).path])
        try #require(result.status == 0, "ldd: \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
    }

    #if os(Linux)
    @Test(arguments: ["adm-push", "adm-fetch"])
    func theCommandsLoadNoFoundation(_ product: String) async throws {
        let libraries = try await Self.sharedLibraries(of: product)
        #expect(libraries.contains { $0.hasPrefix("libsodium") }, "ldd's listing was not read: \(libraries)")
        let foundation = libraries.filter { $0.contains("Foundation") }
        #expect(foundation.isEmpty, "\(product) loads \(foundation)")
        #expect(!libraries.contains { $0.hasPrefix("libcurl") }, "\(product) links libcurl, so every start loads it")
    }

    /// libcurl and its 32 libraries are loaded by the first request, so a command that makes
    /// none never pays for them; one that makes a request still gets it (glibc's loader says
    /// what it opens under LD_DEBUG=files).
    @Test func libcurlIsLoadedByTheFirstRequestOnly() async throws {
        let environment = ["LD_DEBUG": "files", "ADM_PUSH_HOME": NSTemporaryDirectory() + "adm-start-cost-\(UUID())"]
        let quiet = try await run("adm-push", ["--version"], environment: environment)
        #expect(quiet.status == 0 && quiet.stderr.contains("file=libsodium"), "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("libcurl"))
        let asking = try await run("adm-push", ["nodes", "--json", "--node", "http://127.0.0.1:9"], environment: environment)
        #expect(asking.stderr.contains("file=libcurl.so"), "\(asking.stderr)")
        #expect(asking.stdout.contains("Failed to connect to 127.0.0.1 port 9"), "libcurl made the request: \(asking.stdout)")
    }

    /// libcurl's libraries bind their symbols as any library of the process does, so what the
    /// user preloads (an allocator, a socket wrapper, a sanitizer's hooks) is what they call
    /// too: here a `socket` that leaves a file behind, then makes the socket.
    @Test func libcurlCallsWhatTheUserPreloads() async throws {
        let folder = NSTemporaryDirectory() + "adm-preload-\(UUID())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (source, library, marker) = (folder + "/hook.c", folder + "/hook.so", folder + "/socket-called")
        try """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <fcntl.h>
            #include <stdlib.h>
            #include <unistd.h>
            int socket(int domain, int type, int protocol) {
                const char *marker = getenv("HOOK_MARKER");
                int fd = marker ? open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
                if (fd >= 0) close(fd);
                return ((int (*)(int, int, int))dlsym(RTLD_NEXT, "socket"))(domain, type, protocol);
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let compiled = try await run("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source, "-ldl"], environment: ["PATH": "/usr/bin:/bin"])
        try #require(compiled.status == 0, "cc: \(compiled.stderr)")
        let environment = ["LD_PRELOAD": library, "HOOK_MARKER": marker, "ADM_PUSH_HOME": folder + "/home"]
        let asking = try await run("adm-push", ["nodes", "--json", "--node", "http://127.0.0.1:9"], environment: environment)
        #expect(asking.stdout.contains("Failed to connect to 127.0.0.1 port 9"), "libcurl made the request: \(asking.stdout)")
        #expect(FileManager.default.fileExists(atPath: marker), "libcurl's socket() was not the preloaded one")
    }
    #endif
}
