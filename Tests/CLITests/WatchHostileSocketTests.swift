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
        let kilobytes = try #require(Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
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
            return said.contains("\(nodes[0])'s socket is set aside") && said.contains("\(nodes[1])'s socket is set aside")
        }
        #expect(watch.stderr.contains("the socket sent more than 1048576 bytes in one answer"), "\(watch.stderr)")
        #expect(watch.stderr.contains("transactions and answers in 10.0 seconds"), "\(watch.stderr)")

        var sent: [String] = []
        for text in ["one", "two", "three"] { sent.append(try await network.submit(text, from: network.friend, to: network.me).description) }
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
}
