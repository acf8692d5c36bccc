import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation
import Synchronization

/// From the sender's POST answer to the notification line of `adm-fetch watch --json`: live
/// and `--no-live` at the default interval, two processes watching one account side by side
/// on a devnet with mainnet's 5 s blocks, messages sent at random moments.
func watchLatencyBenchmark() async throws -> [Figure] {
    let liveP95 = "watch latency, live p95"
    let ratio = "watch latency p95, live next to --no-live"
    guard let fetch = Spawn.sibling("adm-fetch") else {
        let reason = Spawn.missing("adm-fetch")
        return [
            .skipped(liveP95, .milliseconds, goal: .value(.atMost, 250), because: reason),
            .skipped(ratio, .milliseconds, goal: .ratio(.atMost, 0.05), because: reason),
        ]
    }
    #if DEBUG
        let messages = 5
        let meanGap = 0.2
    #else
        let messages = 200
        let meanGap = 0.3
    #endif
    let devnet = try benchDevnet(freshAccounts: 2) { configuration in
        configuration.blockTime = .seconds(5)
        configuration.poolInterval = .seconds(1)
    }
    defer { devnet.stop() }
    let (me, friend) = (devnet.accounts[0].account, devnet.accounts[1].account)
    let root = try temporaryDirectory("watch-latency")
    defer { try? FileManager.default.removeItem(atPath: root) }

    let watches = try [true, false].map { live in
        try WatchingProcess(
            fetch, live ? [] : ["--no-live"],
            environment: [
                "ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": me.passphrase,
                "ADM_PUSH_HOME": root + (live ? "/live" : "/polled"),
            ])
    }
    defer { for watch in watches { watch.stop() } }
    try watches[0].waitForLog("watch: live on", within: .seconds(30))
    try watches[1].waitForLog("Watching ", within: .seconds(30))

    let nodes = try NodeList(
        endpoints: devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) },
        nethash: .pinned(Nethash(devnet.nethash)!), source: .arguments)
    let client = NodeClient(pool: NodePool(nodes: nodes))
    await client.pool.checkHealth()
    var answered: [TransactionID: UInt64] = [:]
    var random = SystemRandomNumberGenerator()
    for number in 0..<messages {
        // Exponential gaps: moments that fall anywhere in a block's 5 s and a poll's 10 s.
        let gap = -meanGap * log(1 - Double.random(in: 0..<1, using: &random))
        try await Task.sleep(for: .milliseconds(Int(gap * 1000)))
        let asset = try ChatKey(secretKey: friend.keyPair.secretKey, partner: me.publicKey).seal("latency \(number)")
        let sent = try await client.submitChat(asset, to: me.address, signedBy: friend.keyPair)
        guard sent.outcome.isSuccess else {
            throw BenchmarkError(description: "message \(number) was refused: \(sent.outcome)")
        }
        answered[sent.transactionID] = now()
    }
    let ids = Set(answered.keys)
    for watch in watches { try watch.waitForLines(ids, within: .seconds(60)) }

    func latencies(_ watch: WatchingProcess) -> [Double] {
        watch.lineTimes.compactMap { id, shown in answered[id].map { Double(Int64(shown) - Int64($0)) / 1e6 } }.sorted()
    }
    let (live, polled) = (latencies(watches[0]), latencies(watches[1]))
    func p(_ fraction: Double, _ sorted: [Double]) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
    let note = String(
        format: "%d messages; live p50 %.0f ms, p95 %.0f ms; --no-live p50 %.0f ms, p95 %.0f ms", messages,
        p(0.5, live), p(0.95, live),
        p(0.5, polled), p(0.95, polled))
    return [
        Figure(liveP95, .milliseconds, value: p(0.95, live), goal: .value(.atMost, 250), note: note),
        Figure(
            ratio, .milliseconds, value: p(0.95, live),
            floor: Figure.Floor(name: "--no-live p95", value: p(0.95, polled)),
            goal: .ratio(.atMost, 0.05), note: note),
    ]
}

/// An `adm-fetch watch --json` process, its lines read as they come, each noted with when.
final class WatchingProcess: Sendable {
    /// What the reading threads fill.
    private final class Read: Sendable {
        let shown = Mutex<[TransactionID: UInt64]>([:])
        let logged = Mutex<[String]>([])
    }

    private let process: Process
    private let read = Read()

    init(_ path: String, _ arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["watch", "--json"] + arguments
        process.environment = environment
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let read = read
        Self.readLines(output.fileHandleForReading) { line, at in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let text = object["id"] as? String, let id = TransactionID(text)
            else { return }
            read.shown.withLock { $0[id] = $0[id] ?? at }
        }
        Self.readLines(errors.fileHandleForReading) { line, _ in read.logged.withLock { $0.append(line) } }
    }

    var lineTimes: [TransactionID: UInt64] { read.shown.withLock { $0 } }
    /// Every line of standard error so far, in order.
    var logLines: [String] { read.logged.withLock { $0 } }
    var processIdentifier: Int32 { process.processIdentifier }

    func waitForLog(_ prefix: String, within limit: Duration) throws {
        try wait(within: limit, "a log line with \(prefix.debugDescription)") {
            read.logged.withLock { $0.contains { $0.contains(prefix) } }
        }
    }

    func waitForLines(_ ids: Set<TransactionID>, within limit: Duration) throws {
        try wait(within: limit, "\(ids.count) notifications") { ids.isSubset(of: read.shown.withLock { Set($0.keys) }) }
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Checks `done` every 5 ms until it holds; throws after `limit`, or once the watch ended.
    func wait(within limit: Duration, _ what: String, _ done: () -> Bool) throws {
        let deadline = ContinuousClock.now + limit
        while !done() {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw BenchmarkError(
                    description: "adm-fetch watch did not show \(what): \(read.logged.withLock { $0.suffix(3) })")
            }
            usleep(5_000)
        }
    }

    /// Each line of `handle`, with the monotonic time it was read, on a thread of its own.
    private static func readLines(_ handle: FileHandle, _ line: @escaping @Sendable (String, UInt64) -> Void) {
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                guard !chunk.isEmpty else { return }
                let at = now()
                pending.append(chunk)
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: pending[pending.startIndex..<end], as: UTF8.self), at)
                    pending.removeSubrange(pending.startIndex...end)
                }
            }
        }
    }
}
