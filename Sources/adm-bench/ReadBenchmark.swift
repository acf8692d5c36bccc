import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

/// `NodeClient.transaction(id)` in this process against a devnet of 3 nodes: healthy, with the
/// first-ranked node accepting connections and never answering (the figure with a goal: within
/// the hedge delay plus twice the healthy latency plus 1 ms), and once the pool has paid the
/// hedge once. The millisecond is for the wake-ups a read pays after the hedge's idle, which the
/// hot healthy reads leave out.
func readBenchmark() async throws -> [Figure] {
    let devnet = try benchDevnet(freshAccounts: 1)
    defer { devnet.stop() }
    let endpoints = try devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }
    let transport = CurlTransport()  // shared, so every pool reuses its connections
    func checkedClient() async -> NodeClient {
        let pool = NodePool(
            nodes: NodeList(endpoints: endpoints, nethash: .majority, source: .arguments), transport: transport)
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
    guard sent.outcome.isSuccess else {
        throw BenchmarkError(description: "the chat was not accepted: \(sent.outcome)")
    }
    devnet.mine()
    let id = sent.transactionID
    func read(by client: NodeClient) async throws {
        guard try await client.transaction(id) != nil else { throw BenchmarkError(description: "\(id) was not found") }
    }
    try await read(by: client)

    let healthy = try await timings(Budget(iterations: 500)) { try await read(by: client) }
    // The hedged request is a healthy read made after the hedge delay's idle: this says what
    // that idle costs (caches, wake-ups), which the bound built from hot reads leaves out.
    var idleSamples: [Double] = []
    let idleStart = now()
    while Budget(iterations: 100, seconds: 8).allowsAnother(after: idleSamples.count, startedAt: idleStart) {
        try await Task.sleep(for: NodePool.Configuration().hedgeDelayBounds.lowerBound)
        idleSamples.append(try await elapsed { try await read(by: client) })
    }
    let afterIdle = Timing(idleSamples)

    // A fresh pool for each read, so the silent node is always the one it ranks first.
    var blackholedSamples: [Double] = []
    let start = now()
    while Budget(iterations: 200, seconds: 20).allowsAnother(after: blackholedSamples.count, startedAt: start) {
        let degraded = await checkedClient()
        let best = try await bestNode(of: degraded)
        try devnet.add(Fault(.blackhole), toNode: best)
        blackholedSamples.append(try await elapsed { try await read(by: degraded) })
        try devnet.clearFaults(ofNode: best)  // lets go of the held connection
    }
    let blackholed = Timing(blackholedSamples)

    // One pool that has paid the hedge once: the silent node now ranks last.
    let adapted = await checkedClient()
    let silent = try await bestNode(of: adapted)
    try devnet.add(Fault(.blackhole), toNode: silent)
    try await read(by: adapted)
    let afterAdapting = try await timings(Budget(iterations: 500)) { try await read(by: adapted) }
    try devnet.clearFaults(ofNode: silent)

    let hedge = NodePool.Configuration().hedgeDelayBounds.lowerBound.milliseconds
    return [
        Figure("healthy read", .milliseconds, value: healthy.median, note: healthy.summary),
        Figure(
            "healthy read after the hedge delay's idle", .milliseconds, value: afterIdle.median, note: afterIdle.summary
        ),
        Figure(
            "first-ranked node blackholed", .milliseconds, value: blackholed.median,
            floor: Figure.Floor(name: "hedge + 2× healthy + 1 ms", value: hedge + 2 * healthy.median + 1),
            goal: .ratio(.atMost, 1.0),
            note: "\(blackholed.summary); bound: hedge delay \(Int(hedge)) ms + 2 × healthy median + 1 ms"),
        Figure(
            "blackholed, after one hedged read", .milliseconds, value: afterAdapting.median, note: afterAdapting.summary
        ),
    ]
}

/// An in-process devnet with blocks only when mined and the service's poll out of the way.
func benchDevnet(freshAccounts: Int, nodes: Int = 3, configure: (inout DevnetConfiguration) -> Void = { _ in }) throws
    -> Devnet
{
    var configuration = DevnetConfiguration()
    configuration.nodeCount = nodes
    configuration.blockTime = .seconds(3_600)
    configuration.poolInterval = .seconds(3_600)
    configuration.ansPollInterval = .seconds(3_600)
    configuration.freshAccounts = freshAccounts
    configure(&configuration)
    return try Devnet(configuration)
}
