import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantPush
import Foundation

/// The outbox of a home with 100 accounts, at three sizes: 1,000 / 10,000 / 100,000 own
/// signals on chain for 100 / 1,000 / 10,000 tokens (ten signals a token, the last an add),
/// and an add intent kept for every token. Timed over all 100 accounts:
///
/// - `flush(until: now)`, one pass on the fresh home: every own signal read from the node and
///   kept, and every intent found applied (nothing to send);
/// - `status()` after it: the steady state, what `adm-push status` costs from then on.
///
/// Each includes opening the account's outbox, as a command does.
///
/// A curve, not a pass/fail: each size is shown next to the one before (ratio = growth; ten
/// times the data should cost about ten times as long), with the memory each took.
func outboxScaleBenchmark() async throws -> [Figure] {
    let sizes = [1_000, 10_000, 100_000]
    let accounts = 100
    let devnet = try benchDevnet(freshAccounts: accounts * sizes.count)
    defer { devnet.stop() }
    let service = try NotificationService(address: devnet.ans.address, publicKey: devnet.ans.publicKey)
    let directory = try temporaryDirectory("outbox-scale")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // The own-signal listings come off a tape of the devnet's rows, so the curve is the
    // outbox's: the devnet copies its whole chain for every page (see `BacklogTape`).
    let tape = try BacklogTape(path: directory + "/tape")
    let curl = CurlTransport()
    let endpoints = try devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }
    let pool = NodePool(
        nodes: NodeList(endpoints: endpoints, nethash: .majority, source: .arguments),
        transport: BacklogNode(tape: tape, live: curl))
    await pool.checkHealth()
    let client = NodeClient(pool: pool)

    var figures: [Figure] = []
    var previous: (label: String, flush: Double, status: Double)?
    for (step, size) in sizes.enumerated() {
        // Each size has accounts of its own, so the chain holds the smaller sizes too, as a
        // node holds other people's traffic.
        let owners = devnet.accounts[(step * accounts)..<((step + 1) * accounts)].map(\.account.keyPair)
        let tokensPerAccount = size / 10 / accounts
        let tokens = owners.indices.map { a in
            (0..<tokensPerAccount).map { String(format: "%064x", (step << 40) | (a << 20) | $0) }
        }
        try await putSignals(on: devnet, service: service, owners: owners, tokens: tokens, tape: tape, curl)

        // One home for the 100 accounts. Each account's outbox is opened for its turn and let
        // go, as one `adm-push` run does: 100 open at once would be 100 SQLite page caches.
        let home = directory + "/home-\(size)"
        let open = { (owner: KeyPair) throws in try Outbox(home: home, keyPair: owner, service: service, chain: client)
        }
        for (owner, own) in zip(owners, tokens) {
            let outbox = try open(owner)
            for token in own { _ = try await outbox.register(token: token, provider: .apns) }
        }

        let flush = try await measured {
            for owner in owners {
                let report = try await open(owner).flush(within: .zero)
                try expectApplied(report, tokens: tokensPerAccount)
            }
        }
        let status = try await measured {
            for owner in owners {
                let report = try await open(owner).status()
                if let problem = report.networkProblem { throw BenchmarkError(description: "status: \(problem)") }
            }
        }

        let label = "\(Table.grouped(size)) signals, \(Table.grouped(size / 10)) tokens"
        let short = size >= 1_000 ? "\(size / 1_000)k" : "\(size)"
        let before = { (value: Double) in previous.map { Figure.Floor(name: "at \($0.label)", value: value) } }
        figures += [
            Figure(
                "flush, \(label)", .milliseconds, value: flush.milliseconds, floor: before(previous?.flush ?? 0),
                note: String(format: "%.1f ms an account", flush.milliseconds / Double(accounts))),
            Figure("flush peak above start, \(label)", .mebibytes, value: flush.peakAbove),
            Figure(
                "status, \(label)", .milliseconds, value: status.milliseconds, floor: before(previous?.status ?? 0),
                note: String(format: "%.1f ms an account", status.milliseconds / Double(accounts))),
            Figure("status peak above start, \(label)", .mebibytes, value: status.peakAbove),
        ]
        previous = (short, flush.milliseconds, status.milliseconds)
    }
    return figures
}

/// Ten rounds, each a signal for every token, alternating remove and add so the last is an
/// add. Rounds are blocks apart, so no signal lands near an opposite one (`gap`): every token
/// is plainly registered and the planner has nothing to send.
private func putSignals(
    on devnet: Devnet, service: NotificationService, owners: [KeyPair], tokens: [[String]], tape: BacklogTape,
    _ curl: CurlTransport
) async throws {
    let fill = DevnetFill(devnet: devnet)
    let flat = zip(owners, tokens).flatMap { owner, own in own.map { (owner, $0) } }
    var filed = devnet.confirmedTransactions.count
    let record = { (above: Int64) in
        let batch = devnet.confirmedTransactions[filed...]
        try await tape.record(batch, above: above, filter: "type=3", from: devnet.nodeURLs[0], curl) {
            $0.senderPublicKey.address.description
        }
        filed += batch.count
    }
    for round in 0..<10 {
        let action: PushAction = round % 2 == 1 ? .add : .remove
        try await fill.submit(flat.count, mined: record) { i, timestamp, timestampMs in
            let (owner, token) = flat[i]
            let signal = try PushSignal(token: token, provider: .apns, action: action)
            return try Transaction.signal(
                signal, to: service, timestamp: timestamp, timestampMs: timestampMs, signedBy: owner)
        }
        for _ in 0..<5 { devnet.mine() }
    }
}

private func expectApplied(_ report: FlushReport, tokens: Int) throws {
    if let problem = report.networkProblem { throw BenchmarkError(description: "flush: \(problem)") }
    let applied = report.keys.filter { if case .applied = $0.newest.state { true } else { false } }.count
    guard report.keys.count == tokens, applied == tokens else {
        let example =
            report.keys.first { if case .applied = $0.newest.state { false } else { true } }.map {
                "\($0.newest.state)"
            } ?? "none"
        throw BenchmarkError(
            description: "flush left \(tokens - applied) of \(tokens) intents unapplied (one is \(example))")
    }
}

/// Time and the memory peak above where it started, of `body`.
private func measured(_ body: () async throws -> Void) async throws -> (milliseconds: Double, peakAbove: Double) {
    Memory.resetPeak()
    let before = Memory.sample().resident
    let start = now()
    try await body()
    let elapsed = milliseconds(since: start)
    return (elapsed, max(0, Memory.sample().peak - before))  // the peak restarts at about `before`
}
