import AdamantCore
import AdamantDevnet
import Foundation

/// `adm-push nodes --json` as a cold process against a devnet of 3 nodes, next to one curl
/// process asking the same 3 status URLs (what the health check asks, one per node).
func coldNodesBenchmark() async throws -> [Figure] {
    let cold = "cold adm-push nodes --json"
    let rss = "adm-push nodes peak RSS"
    guard let push = Spawn.sibling("adm-push"), let curl = Spawn.curl() else {
        return skippedColdFigures(
            cold, rss, because: Spawn.missing("adm-push", orCurl: true))
    }
    let devnet = try benchDevnet(freshAccounts: 0)
    defer { devnet.stop() }
    let home = try temporaryDirectory("nodes")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let environment = ["ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PUSH_HOME": home]
    let statusURLs = devnet.nodeURLs.map { $0 + "/api/node/status" }
    let runs = try Spawn.paired(
        Budget(iterations: 50, seconds: 10),
        ours: Spawn.Command(path: push, arguments: ["nodes", "--json"], environment: environment),
        peer: Spawn.Command(path: curl, arguments: ["-s"] + statusURLs))
    return coldFigures(cold, rss, runs, peerName: "curl, 3 GETs")
}

/// `adm-push register --no-wait` as a cold process (the key derived, the intent committed
/// durably), next to what the same work costs at the floor: one curl process POSTing a
/// transaction-sized body to a node, plus one bare SQLite commit in this process.
func coldRegisterBenchmark() async throws -> [Figure] {
    let cold = "cold adm-push register --no-wait"
    let rss = "adm-push register peak RSS"
    guard let push = Spawn.sibling("adm-push"), let curl = Spawn.curl() else {
        return skippedColdFigures(
            cold, rss, because: Spawn.missing("adm-push", orCurl: true))
    }
    let devnet = try benchDevnet(freshAccounts: 1)
    defer { devnet.stop() }
    let directory = try temporaryDirectory("register")
    defer { try? FileManager.default.removeItem(atPath: directory) }

    // A real signal, from an account with no ADM: every POST goes through the node's checks
    // and is refused the same way, so none changes what the next one meets.
    let signal = try PushSignal(token: String(repeating: "ab", count: 32), provider: .apns, action: .add)
    let stamp = NodeClock().stamp(localUnixMillis: SystemWallClock().unixMillis())
    let transaction = try Transaction.signal(
        signal, to: .adamantIOS, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs, signedBy: KeyPair.random())
    let body = directory + "/body.json"
    try Data(try transaction.submissionBody()).write(to: URL(fileURLWithPath: body))
    let post = [
        "-s", "-H", "Content-Type: application/json", "--data-binary", "@" + body,
        devnet.nodeURLs[0] + transaction.submissionPath,
    ]

    let environment = [
        "ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": devnet.accounts[0].account.passphrase,
        "ADM_PUSH_HOME": directory + "/home",
    ]
    let arguments = ["register", "--token", String(repeating: "0f", count: 32), "--provider", "apns", "--no-wait"]
    let runs = try Spawn.paired(
        Budget(iterations: 50, seconds: 10),
        ours: Spawn.Command(path: push, arguments: arguments, environment: environment, expect: 75),
        peer: Spawn.Command(path: curl, arguments: post))
    let commit = try await BareSQLite(path: directory + "/bare.sqlite").timing(100)
    var figures = coldFigures(cold, rss, runs, peerName: "curl POST + bare commit", peerExtra: commit.median)
    figures[0].note! += String(format: "; the bare commit's median %.2f ms", commit.median)
    return figures
}

private func skippedColdFigures(_ cold: String, _ rss: String, because reason: String) -> [Figure] {
    [
        .skipped(cold, .milliseconds, goal: .ratio(.atMost, 1.5), because: reason),
        .skipped(rss, .mebibytes, goal: .value(.atMost, 20), because: reason),
    ]
}

/// The time figure (≤ 1.5× the peer) and the peak RSS figure (≤ 20 MiB) of a cold command.
private func coldFigures(
    _ cold: String, _ rss: String, _ runs: (ours: Timing, peer: Timing, oursPeak: Double?, peerPeak: Double?),
    peerName: String,
    peerExtra: Double = 0
) -> [Figure] {
    [
        Figure(
            cold, .milliseconds, value: runs.ours.median,
            floor: Figure.Floor(name: peerName, value: runs.peer.median + peerExtra),
            goal: .ratio(.atMost, 1.5), note: "ours \(runs.ours.summary), curl \(runs.peer.summary)"),
        peakFigure(rss, ours: runs.oursPeak, curl: runs.peerPeak),
    ]
}

/// Peak RSS (the largest of 3 runs, each a child of GNU time: see `Spawn`) against the 20 MiB
/// goal, curl's alongside; skipped without GNU time.
func peakFigure(_ name: String, ours: Double?, curl: Double?) -> Figure {
    guard let ours, let curl else {
        return .skipped(
            name, .mebibytes, goal: .value(.atMost, 20),
            because: "needs GNU time (\(Spawn.time)) to read a child's own peak")
    }
    return Figure(
        name, .mebibytes, value: ours, floor: Figure.Floor(name: "curl", value: curl), goal: .value(.atMost, 20))
}
