// adm-bench: the performance targets of DESIGN.md, measured on this machine.
// Run with `swift run -c release adm-bench [name…]`; with no name it runs them all.
import AdamantCLI
import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

struct Benchmark {
    let name: String
    /// One line for `--help`.
    let summary: String
    let run: () async throws -> [Report]
}

/// One output line: `name (variant): result   (target: …)`.
struct Report {
    var variant: String? = nil
    let result: String
    var target: String? = nil
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

/// Median and p99 of samples in milliseconds.
func percentiles(_ samples: [Double]) -> (median: Double, p99: Double) {
    let sorted = samples.sorted()
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
}

func milliseconds(since start: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Median and p99 of `iterations` timed calls, in milliseconds. Runs on the caller's actor,
/// so the timed body need not be Sendable.
nonisolated(nonsending) func timings(iterations: Int, _ body: () async throws -> Void) async rethrows -> (median: Double, p99: Double) {
    var samples = [Double]()
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        samples.append(milliseconds(since: start))
    }
    return percentiles(samples)
}

func formatted(_ t: (median: Double, p99: Double)) -> String {
    String(format: "median %.3f ms, p99 %.3f ms", t.median, t.p99)
}

// MARK: read

/// `NodeClient.transaction(id)` over libcurl against an in-process devnet of 3 nodes, healthy
/// and with the first-ranked node accepting connections and never answering, next to `curl`
/// run as a whole process for the same URL.
func readBenchmark() async throws -> [Report] {
    var configuration = DevnetConfiguration()
    configuration.blockTime = .milliseconds(200)
    configuration.ansPollInterval = .seconds(600)
    configuration.freshAccounts = 1
    let devnet = try Devnet(configuration)
    defer { devnet.stop() }
    let endpoints = try devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }
    let transport = CurlTransport()  // shared, so every pool reuses its connections
    func checkedClient() async -> NodeClient {
        let pool = NodePool(nodes: NodeList(endpoints: endpoints, nethash: .majority, source: .arguments), transport: transport)
        await pool.checkHealth()
        return NodeClient(pool: pool)
    }
    /// The devnet index of the node the client ranks first.
    func bestNode(of client: NodeClient) async throws -> Int {
        let best = try await client.submissionTarget().node
        return devnet.nodeURLs.firstIndex(of: best.description)!
    }

    let client = await checkedClient()
    let sender = devnet.accounts[0].account.keyPair
    let asset = try ChatKey(secretKey: sender.secretKey, partner: devnet.ans.publicKey).seal("benchmark")
    let sent = try await client.submitChat(asset, to: devnet.ans.address, signedBy: sender)
    guard sent.outcome.isSuccess else { throw BenchmarkError(description: "the chat was not accepted: \(sent.outcome)") }
    devnet.mine()
    let id = sent.transactionID
    guard try await client.transaction(id) != nil else { throw BenchmarkError(description: "\(id) is not in a block") }
    func read(by client: NodeClient) async throws {
        guard try await client.transaction(id) != nil else { throw BenchmarkError(description: "\(id) was not found") }
    }

    let healthy = try await timings(iterations: 500) { try await read(by: client) }

    // A fresh pool for each read, so the silent node is always the one it ranks first.
    var blackholedSamples = [Double]()
    for _ in 0..<200 {
        let degraded = await checkedClient()
        let best = try await bestNode(of: degraded)
        try devnet.add(Fault(.blackhole), toNode: best)
        let start = DispatchTime.now().uptimeNanoseconds
        try await read(by: degraded)
        blackholedSamples.append(milliseconds(since: start))
        try devnet.clearFaults(ofNode: best)  // lets go of the held connection
    }
    let blackholed = percentiles(blackholedSamples)

    // One pool that has paid the hedge once: the silent node now ranks last.
    let adapted = await checkedClient()
    let silent = try await bestNode(of: adapted)
    try devnet.add(Fault(.blackhole), toNode: silent)
    try await read(by: adapted)
    let afterAdapting = try await timings(iterations: 500) { try await read(by: adapted) }
    try devnet.clearFaults(ofNode: silent)

    let hedgeFloor = NodePool.Configuration().hedgeDelayBounds.lowerBound.milliseconds
    let failoverTarget = String(
        format: "≤ hedge delay (at least %.0f ms) + 2 × healthy median = %.1f ms", hedgeFloor, hedgeFloor + 2 * healthy.median)
    let url = devnet.nodeURLs[0] + "/api/transactions/get?id=\(id)&returnAsset=1"
    return [
        Report(variant: "healthy", result: formatted(healthy)),
        Report(variant: "first-ranked blackholed", result: formatted(blackholed), target: failoverTarget),
        Report(variant: "first-ranked blackholed, after one hedged read", result: formatted(afterAdapting)),
        try await curlReport(url: url, runs: 50),
    ]
}

/// `curl -s URL` as a whole process: DESIGN.md's floor for a cold fetch.
func curlReport(url: String, runs: Int) async throws -> Report {
    guard let t = try await curlTimings(url: url, runs: runs) else { return Report(variant: "curl process", result: "skipped: curl is not installed") }
    return Report(variant: "curl process", result: formatted(t) + " (\(runs) runs)")
}

/// The same timings, nil when curl is not installed.
func curlTimings(url: String, runs: Int) async throws -> (median: Double, p99: Double)? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/curl" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else { return nil }
    return try await timings(iterations: runs) {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: path)
        curl.arguments = ["-s", url]
        curl.standardOutput = FileHandle.nullDevice
        try curl.run()
        curl.waitUntilExit()
        guard curl.terminationStatus == 0 else { throw BenchmarkError(description: "curl exited with \(curl.terminationStatus)") }
    }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
}

// MARK: All benchmarks

let benchmarks = [
    Benchmark(name: "keys", summary: "passphrase → key pair (BIP39 seed, SHA-256, Ed25519)") {
        let phrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
        let passphrase = try Passphrase(validating: phrase)
        let t = await timings(iterations: 500) { _ = KeyPair(passphrase: passphrase) }
        return [Report(result: formatted(t), target: "passphrase → keys ≤ 1.3 ms")]
    },
    Benchmark(name: "verify-decrypt", summary: "signature check and decryption of 5,000 chat messages from 20 partners") {
        // 20 partners writing to one account: shared keys are cached per partner, as a poller does.
        let me = KeyPair.random()
        let partners = (0..<20).map { _ in KeyPair.random() }
        let transactions = try (0..<5_000).map { i in
            let partner = partners[i % partners.count]
            let asset = try ChatKey(secretKey: partner.secretKey, partner: me.publicKey).seal("message number \(i)")
            return try Transaction.chat(asset, to: me.address, timestamp: Int32(i), signedBy: partner)
        }
        var keys = [PublicKey: ChatKey]()
        let start = DispatchTime.now().uptimeNanoseconds
        for transaction in transactions {
            try transaction.verify()
            let partner = transaction.senderPublicKey
            let key = try keys[partner] ?? ChatKey(secretKey: me.secretKey, partner: partner)
            keys[partner] = key
            _ = try key.open(transaction.chat!)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rate = String(format: "%.0f tx/s", Double(transactions.count) / seconds)
        return [Report(result: rate, target: "watch verify + decrypt ≥ 15k tx/s on one core")]
    },
    Benchmark(
        name: "outbox", summary: "a durable register --no-wait commit next to a bare SQLite commit, and folding 10,000 own signals",
        run: outboxBenchmark),
    Benchmark(
        name: "read", summary: "a confirmed transaction read from a local devnet, healthy and with a silent node, next to curl",
        run: readBenchmark),
    Benchmark(
        name: "fetch", summary: "adm-fetch as a cold process on a local devnet, healthy and with the cached best node silent, next to curl",
        run: fetchBenchmark),
]

// MARK: Command line

let output = Output()

let help = """
    OVERVIEW: Measure the performance targets of DESIGN.md on this machine (use a release build:
    swift run -c release adm-bench).

    USAGE: adm-bench [<benchmark> ...]

    BENCHMARKS:
    \(benchmarks.map { "  " + $0.name + String(repeating: " ", count: 16 - $0.name.count) + $0.summary }.joined(separator: "\n"))

      With no name, every benchmark runs.

    OPTIONS:
      -h, --help      Show help information.

    EXIT CODES:
      0    every benchmark ran
      1    a benchmark failed (the reason is printed)
      64   usage error
      74   output could not be written
    """

/// The benchmarks named on the command line, all when none is; none after help or a usage
/// error, which `exitCode` tells apart.
@MainActor func selection(_ arguments: [String]) -> (benchmarks: [Benchmark], exitCode: ExitCode) {
    if arguments.contains(where: { ["-h", "--help", "help"].contains($0) }) {
        output.print(help)
        return ([], .success)
    }
    let names = benchmarks.map(\.name)
    for argument in arguments where !names.contains(argument) {
        if argument.hasPrefix("-") {
            output.error("Error: unknown option \(argument.quoted)")
        } else {
            let hint = Spelling.nearest(to: argument, in: names).map { " (did you mean '\($0)'?)" } ?? " (one of: \(names.joined(separator: ", ")))"
            output.error("Error: unknown benchmark \(argument.quoted)\(hint)")
        }
        output.error("Usage: adm-bench [<benchmark> ...]")
        output.error("  See 'adm-bench --help' for the benchmarks.")
        return ([], .usage)
    }
    return (benchmarks.filter { arguments.isEmpty || arguments.contains($0.name) }, .success)
}

let (selected, parsed) = selection(Array(CommandLine.arguments.dropFirst()))
var exitCode = parsed
for benchmark in selected {
    do {
        for report in try await benchmark.run() {
            let label = benchmark.name + (report.variant.map { " (\($0))" } ?? "")
            output.print("\(label): \(report.result)" + (report.target.map { "   (target: \($0))" } ?? ""))
        }
    } catch {
        output.print("\(benchmark.name): failed: \(error)")
        exitCode = .rejected
    }
}
if exitCode == .success, output.firstFailure != nil { exitCode = .outputFailed }
exit(exitCode.rawValue)
