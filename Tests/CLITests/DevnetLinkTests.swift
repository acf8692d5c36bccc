import Testing

/// adm-devnet runs adm-push and adm-fetch as processes and links none of their libraries:
/// the store (and so the outbox and the watch, built on it) would load SQLite, which nothing
/// else of adm-devnet needs.
@Suite("adm-devnet's links")
struct DevnetLinkTests {
    #if os(Linux)
        @Test func theDevnetLinksNoStore() async throws {
            let devnet = try await StartCostTests.sharedLibraries(of: "adm-devnet")
            #expect(devnet.contains { $0.hasPrefix("libmicrohttpd") }, "ldd's listing was not read: \(devnet)")
            #expect(!devnet.contains { $0.hasPrefix("libsqlite3") }, "adm-devnet links SQLite: \(devnet)")
            // The same question asked of a command that does link the store says yes.
            #expect(try await StartCostTests.sharedLibraries(of: "adm-push").contains { $0.hasPrefix("libsqlite3") })
        }
    #endif
}
