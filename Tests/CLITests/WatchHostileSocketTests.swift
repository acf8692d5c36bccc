import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// `adm-fetch watch` against nodes whose sockets are hostile, as a process: it neither traps
/// nor shows anything false, its memory stays bounded, each such socket is set aside, and the
/// listings still show every message once.
@Suite("adm-fetch watch, hostile sockets", .timeLimit(.minutes(4)))
struct WatchHostileSocketTests {
    /// The process's peak resident size, in MiB.
    static func peakMiB(_ pid: pid_t) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(
            Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
        return kilobytes / 1024
    }

    @Test func aHugeAndAFloodingSocketAreSetAsideAndTheListingsShowAll() async throws {
        let network = try await FetchDevnet()
        try network.devnet.add(Fault(.socketHuge), toNode: 0)
        try network.devnet.add(Fault(.socketFlood), toNode: 1)
        let watch = try await WatchProcess(network, name: "hostile")
        let nodes = network.devnet.nodeURLs
        try await watch.until("both sockets are set aside") {
            let said = watch.stderr
            return said.contains("\(nodes[0])'s socket is set aside")
                && said.contains("\(nodes[1])'s socket is set aside")
        }
        #expect(watch.stderr.contains("the socket sent more than 1048576 bytes in one answer"), "\(watch.stderr)")
        #expect(
            watch.stderr.contains("answers with nothing for the watched accounts in 10.0 seconds"), "\(watch.stderr)")

        var sent: [String] = []
        for text in ["one", "two", "three"] {
            sent.append(try await network.submit(text, from: network.friend, to: network.me).description)
        }
        try await watch.until("all are shown") { watch.ids.count >= 3 }
        let pid = try #require(watch.processID)
        let peak = try Self.peakMiB(pid)
        #expect(kill(pid, 0) == 0, "still running")
        let result = try await watch.stop()
        #expect(result.status == 0 && result.signal == nil, "\(watch.stderr)")
        #expect(watch.ids == sent, "each once, in order, nothing else")
        // Read whole, a 10 MB answer took the peak past 40 MiB; cut off at 1 MiB, it stays near 26.
        #expect(peak < 34, "peak resident \(peak) MiB")
    }

    /// A socket that takes every poll and answers none, the handshake included: each session
    /// fails at its request timeout (10 s), and the third in a row sets the node aside (the
    /// watch follows both nodes' sockets). Meanwhile the other node's socket shows every
    /// message, once.
    @Test func aSocketThatHoldsEveryPollIsSetAsideAfterThreeSessions() async throws {
        let network = try await FetchDevnet()
        try network.devnet.add(Fault(.socketHold), toNode: 0)
        let (held, other) = (network.devnet.nodeURLs[0], network.devnet.nodeURLs[1])
        let watch = try await WatchProcess(network, name: "held")
        try await watch.until("the other socket is live") { watch.stderr.contains("watch: live on \(other)") }
        var sent = [try await network.submit("while it holds", from: network.friend, to: network.me).description]
        try await watch.until("it is shown while the held socket waits") { watch.ids.count >= 1 }
        try await watch.until("the held socket is set aside", within: 90) {
            watch.stderr.contains("\(held)'s socket is set aside")
        }
        #expect(watch.stderr.contains("3 sessions in a row failed"), "\(watch.stderr)")
        sent.append(try await network.submit("once it is set aside", from: network.friend, to: network.me).description)
        try await watch.until("that is shown too") { watch.ids.count >= 2 }
        let result = try await watch.stop()
        #expect(result.status == 0 && result.signal == nil, "\(watch.stderr)")
        #expect(watch.ids == sent, "each once, in order, nothing else")
        #expect(!watch.stderr.contains("\(other)'s socket is set aside"), "\(watch.stderr)")
    }
}
