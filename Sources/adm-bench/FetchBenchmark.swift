import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

/// `adm-fetch TXN_ID --json` as a whole cold process against a local devnet of 3 nodes, next
/// to `curl` fetching the same transaction URL; its peak RSS; and a cold fetch whose
/// first-ranked node (as the health cache says) accepts connections and never answers.
func fetchBenchmark() async throws -> [Report] {
    let fetch = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("adm-fetch").path
    guard FileManager.default.isExecutableFile(atPath: fetch) else {
        return [Report(result: "skipped: build adm-fetch beside adm-bench first (swift build -c release)")]
    }
    var configuration = DevnetConfiguration()
    configuration.blockTime = .milliseconds(200)
    configuration.ansPollInterval = .seconds(600)
    configuration.freshAccounts = 2
    let devnet = try Devnet(configuration)
    defer { devnet.stop() }
    let (me, friend) = (devnet.accounts[0].account, devnet.accounts[1].account)
    let id = try devnet.send(from: friend.address, to: me.address, kind: .message, message: "benchmark")
    devnet.mine()

    let home = FileManager.default.temporaryDirectory.appendingPathComponent("adm-bench-fetch-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: home) }
    let environment = ProcessInfo.processInfo.environment.merging(
        ["ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": me.passphrase, "ADM_PUSH_HOME": home]) { $1 }
    func runFetch() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fetch)
        process.arguments = [id.description, "--json", "--no-names"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError(description: "adm-fetch exited with \(process.terminationStatus)") }
    }

    try runFetch()  // measures health and leaves the cache every later run starts from
    let cache = home + "/node-health.json"
    let healthyCache = try Data(contentsOf: URL(fileURLWithPath: cache))
    let cold = try await timings(iterations: 50) { try runFetch() }
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    let peakMiB = Double(usage.ru_maxrss) / 1024

    // The cache's best node goes silent; each run starts from the healthy cache again.
    let snapshot = try JSONDecoder().decode(HealthFile.self, from: healthyCache).snapshot
    let best = snapshot.nodes.filter(\.usable).min { ($0.latencyMicros ?? .max) < ($1.latencyMicros ?? .max) }
    guard let best, let index = devnet.nodeURLs.firstIndex(of: best.endpoint) else { throw BenchmarkError(description: "no usable node in the cache") }
    try devnet.add(Fault(.blackhole), toNode: index)
    let blackholed = try await timings(iterations: 20) {
        try healthyCache.write(to: URL(fileURLWithPath: cache))
        try runFetch()
    }
    try devnet.clearFaults(ofNode: index)

    let url = devnet.nodeURLs[0] + "/api/transactions/get?id=\(id)&returnAsset=1"
    let curl = try await curlTimings(url: url, runs: 50)
    let hedgeFloor = NodePool.Configuration().hedgeDelayBounds.lowerBound.milliseconds
    var reports = [
        Report(variant: "cold adm-fetch process", result: formatted(cold) + (curl.map { String(format: ", %.2f× curl", cold.median / $0.median) } ?? ""),
               target: "≤ 2× curl for the same URL"),
        Report(variant: "peak RSS", result: String(format: "%.1f MiB", peakMiB), target: "≤ 30 MB"),
        Report(variant: "cold, the cached best node blackholed", result: formatted(blackholed),
               target: String(format: "≤ hedge delay (%.0f ms) + 2 × cold median = %.1f ms", hedgeFloor, hedgeFloor + 2 * cold.median)),
    ]
    if let curl { reports.append(Report(variant: "curl process", result: formatted(curl) + " (50 runs)")) }
    return reports
}

/// The health cache's file, as `HealthCache` writes it.
private struct HealthFile: Decodable {
    var snapshot: HealthSnapshot
}
