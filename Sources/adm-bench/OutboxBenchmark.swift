import AdamantCore
import AdamantNodes
import AdamantPush
import CSQLite
import Foundation

/// The outbox's two figures: a durable `register --no-wait` commit next to one bare SQLite
/// WAL `synchronous=FULL` one-row commit on the same disk, and folding 10,000 kept own signals.
func outboxBenchmark() async throws -> [Report] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adm-bench-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(atPath: directory) }

    let floor = try bareCommits(path: directory + "/bare.sqlite", count: 300)
    let keys = KeyPair.random()
    let service = NotificationService.adamantIOS
    let nowhere = NodeClient(pool: NodePool(nodes: NodeList(endpoints: [NodeEndpoint(url: try NodeURL("http://127.0.0.1:9"))], nethash: .majority, source: .arguments)))
    let outbox = try Outbox(home: directory + "/home", keyPair: keys, service: service, chain: nowhere)
    var index = 0
    let commits = try await timings(iterations: 300) {
        index += 1
        _ = try await outbox.register(token: String(format: "%064x", index), provider: .apns)
    }

    // 10,000 own signals over 1,000 tokens, kept in the store, then read back and folded.
    let folded = try Outbox(home: directory + "/fold", keyPair: keys, service: service, chain: nowhere)
    let signals = try (0..<10_000).map { i in
        OwnSignal(id: TransactionID(number: UInt64(i + 1)), height: Int64(i / 5 + 1), timestamp: Int32(i),
                  signal: try PushSignal(token: String(format: "%064x", i % 1_000), provider: .apns, action: i % 3 == 0 ? .remove : .add))
    }
    try await folded.keep(signals, cursor: 2_001)
    let fold = try await timings(iterations: 20) { _ = try await folded.keptChainState() }
    let kept = try await folded.keptSignals()
    let foldOnly = await timings(iterations: 20) { _ = ChainFold().account(of: kept) }

    let ratio = commits.median / floor.median
    return [
        Report(variant: "bare SQLite WAL FULL commit", result: formatted(floor)),
        Report(
            variant: "register --no-wait commit", result: formatted(commits) + String(format: ", %.2f× the bare commit", ratio),
            target: "≤ 1.5× the bare commit and ≤ 5 ms"),
        Report(variant: "fold 10,000 kept signals", result: formatted(fold), target: "≤ 50 ms"),
        Report(variant: "of which the fold alone", result: formatted(foldOnly)),
    ]
}

/// Median and p99 of one-row `BEGIN IMMEDIATE; INSERT; COMMIT` in WAL with synchronous=FULL,
/// straight on SQLite's C API: the floor a durable commit cannot beat.
func bareCommits(path: String, count: Int) throws -> (median: Double, p99: Double) {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
        throw BenchmarkError(description: "cannot open \(path)")
    }
    defer { sqlite3_close_v2(db) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchmarkError(description: String(cString: sqlite3_errmsg(db))) }
    }
    try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
    var samples: [Double] = []
    for i in 0..<count {
        let start = DispatchTime.now().uptimeNanoseconds
        try exec("BEGIN IMMEDIATE; INSERT INTO t (v) VALUES (randomblob(\(100 + i % 7))); COMMIT")
        samples.append(milliseconds(since: start))
    }
    return percentiles(samples)
}
