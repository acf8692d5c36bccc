import AdamantCore
import Foundation
import Testing

@testable import adm_bench

/// A proxy that goes away and comes back: Debian's microsocks, stopped (killed, as a crash
/// or a restart leaves it) and started again on the same port.
@Suite("proxy outage", .timeLimit(.minutes(3)))
struct ProxyOutageTests {
    /// The outage is longer than three failed sessions of a socket take: their retries come
    /// 0.5–1 s, 1–2 s and 2–4 s after each failure, so three have failed by 7 s. Before, the
    /// sockets were set aside for 10 minutes as the nodes' fault, and only the REST polls
    /// showed what came.
    static let outage = Duration.seconds(10)

    @Test(.enabled(if: TraceTools.runs(needing: LoopbackProxy.microsocks)))
    func anOutageOfTheProxySetsNoSocketAsideAndTheSocketsComeBackWithIt() async throws {
        try TraceTools.require(LoopbackProxy.microsocks)
        let network = try await FetchDevnet()
        var proxy: LoopbackProxy? = try LoopbackProxy()
        let port = try #require(proxy?.port)
        let url = "socks5h://127.0.0.1:\(port)"
        let watch = try await WatchProcess(network, ["--proxy", url], name: "outage")
        @Sendable func live() -> Int { watch.stderr.components(separatedBy: "live on").count - 1 }
        try await watch.until("both sockets are live") { live() >= 2 }

        proxy = nil
        try await watch.until("both sockets are down") {
            watch.stderr.components(separatedBy: "socket is down").count - 1 >= 2
        }
        // The outage itself, not a wait for something: the watch is left without its proxy.
        try await Task.sleep(for: Self.outage)
        proxy = try LoopbackProxy(port: port)
        // Each socket is back within its backoff: under 16 s after the outage.
        try await watch.until("both sockets are live again", within: 40) { live() >= 4 }
        let id = try #require(try await network.send("after the outage", from: network.friend, to: network.me).id)
            .description
        try await watch.until("what came after is shown") { watch.ids.contains(id) }
        let result = try await watch.stop()

        #expect(result.status == 0, "\(watch.stderr)")
        #expect(!watch.stderr.contains("set aside"), "no socket was set aside: \(watch.stderr)")
        // "failed: …" when it went as a request was under way, "refused the connection" after.
        #expect(
            watch.stderr.contains("the proxy \(url) failed: ")
                || watch.stderr.contains("the proxy \(url) refused the connection"),
            "the proxy is named as the cause: \(watch.stderr)")
        withExtendedLifetime(proxy) {}
    }
}

/// A SOCKS proxy given as http:// answers the tunnel's CONNECT with no HTTP at all: the error
/// names the proxy and says what to give instead.
@Suite("proxy of the wrong kind", .timeLimit(.minutes(2)))
struct ProxyKindTests {
    @Test(.enabled(if: TraceTools.runs(needing: LoopbackProxy.microsocks)))
    func aSOCKSProxyGivenAsHTTPIsNamedWithWhatToGive() async throws {
        try TraceTools.require(LoopbackProxy.microsocks)
        let network = try await FetchDevnet()
        let proxy = try LoopbackProxy()
        let url = "http://127.0.0.1:\(proxy.port)"
        let result = try await network.fetch(["12345", "--proxy", url, "--deadline", "5"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains("Error: the proxy \(url) failed: it does not answer HTTP's CONNECT"),
            "\(result.stderr)")
        #expect(result.stderr.contains("if it is a SOCKS proxy, give socks5h://"))
        withExtendedLifetime(proxy) {}
    }
}
