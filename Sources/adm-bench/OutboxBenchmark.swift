import AdamantCore
import AdamantNodes
import AdamantPush
import CSQLite
import Foundation

/// A durable `register --no-wait` commit through the outbox, next to one bare SQLite WAL
/// `synchronous=FULL` one-row commit on the same disk, alternately.
func outboxBenchmark() async throws -> [Figure] {
    let directory = try temporaryDirectory("outbox")
    defer { try? FileManager.default.removeItem(atPath: directory) }

    let bare = try BareSQLite(path: directory + "/bare.sqlite")
    let discard = [NodeEndpoint(url: try NodeURL("http://127.0.0.1:9"))]  // never asked: register sends nothing
    let nowhere = NodeClient(
        pool: NodePool(nodes: NodeList(endpoints: discard, nethash: .majority, source: .arguments)))
    let outbox = try Outbox(home: directory + "/home", keyPair: KeyPair.random(), service: .adamantIOS, chain: nowhere)
    var index = 0
    let (ours, floor) = try await pairedTimings(Budget(iterations: 300)) {
        index += 1
        _ = try await outbox.register(token: String(format: "%064x", index), provider: .apns)
    } floor: {
        try bare.commit()
    }
    return [
        Figure(
            "register --no-wait durable commit", .milliseconds, value: ours.median,
            floor: Figure.Floor(name: "bare SQLite commit", value: floor.median), goal: .ratio(.atMost, 1.5),
            note: "ours \(ours.summary); floor: BEGIN IMMEDIATE, one INSERT, COMMIT in WAL with synchronous=FULL")
    ]
}

/// A private temporary folder.
func temporaryDirectory(_ purpose: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "adm-bench-\(purpose)-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return path
}

/// One-row `BEGIN IMMEDIATE; INSERT; COMMIT` in WAL with synchronous=FULL, straight on
/// SQLite's C API: the floor a durable commit cannot beat.
final class BareSQLite {
    private let db: OpaquePointer
    private var rows = 0

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle
        else {
            sqlite3_close_v2(handle)
            throw BenchmarkError(description: "cannot open \(path)")
        }
        db = handle
        try exec(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)"
        )
    }

    deinit { sqlite3_close_v2(db) }

    func commit() throws {
        rows += 1
        try exec("BEGIN IMMEDIATE; INSERT INTO t (v) VALUES (randomblob(\(100 + rows % 7))); COMMIT")
    }

    /// Median of `count` commits, in milliseconds.
    func timing(_ count: Int) async throws -> Timing {
        try await timings(Budget(iterations: count)) { try commit() }
    }

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError(description: String(cString: sqlite3_errmsg(db)))
        }
    }
}
