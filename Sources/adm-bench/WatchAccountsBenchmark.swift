import Foundation

/// One `adm-fetch watch` of 1, 10 and 100 accounts, each on a devnet of its own: its CPU,
/// requests and resident memory per idle hour, each account's share next to the watch of one
/// (the sockets and health checks are shared, so the share should fall), and the 95th
/// percentile of a burst of 100 messages sent at once, spread over the watch's accounts, next
/// to the same burst to the watch of one.
func watchAccountsBenchmark() async throws -> [Figure] {
    let sizes = [1, 10, 100]
    guard let fetch = Spawn.sibling("adm-fetch") else {
        let reason = Spawn.missing("adm-fetch")
        return sizes.flatMap { size -> [Figure] in
            let peer = size == 1
            return [
                .skipped(cpuName(size), .milliseconds, goal: peer ? nil : .ratio(.atMost, 1.0), because: reason),
                .skipped(requestsName(size), .count, goal: peer ? nil : .ratio(.atMost, 1.0), because: reason),
                .skipped(memoryName(size), .mebibytes, goal: peer ? nil : .ratio(.atMost, 2.0), because: reason),
                .skipped(burstName(size), .milliseconds, goal: .value(.atMost, 250), because: reason),
            ]
        }
    }
    #if DEBUG
        let span: Duration = .seconds(5)
        let quiet: Duration = .seconds(1)
        let alignment: (offset: Duration, cycle: Duration)? = nil
        let rounds = 1
    #else
        // 300 s holds whole numbers of the sockets' 25 s pings, the listings' 60 s and the
        // health checks' 300 s; it starts 30 s into a listing cycle, so that no round of 100
        // accounts' listings straddles either end.
        let span: Duration = .seconds(300)
        let quiet: Duration = .seconds(2)
        let alignment: (offset: Duration, cycle: Duration)? = (.seconds(30), .seconds(60))
        let rounds = 3
    #endif
    let root = try temporaryDirectory("watch-accounts")
    defer { try? FileManager.default.removeItem(atPath: root) }
    var watches: [AccountsWatch] = []
    defer { for watch in watches { watch.stop() } }
    for size in sizes {
        let folder = root + "/\(size)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        watches.append(try AccountsWatch(size: size, partners: 100, fetch: fetch, folder: folder))
    }
    // All three start together and are measured over spans of their own, each in step with
    // its own listings.
    var lastAsked: [ContinuousClock.Instant] = []
    for watch in watches { lastAsked.append(try watch.settle(quiet: quiet, within: .seconds(120))) }
    let settled = ContinuousClock.now
    let starts = lastAsked.map { last in
        guard let alignment else { return settled }
        var start = last + alignment.offset
        while start < settled { start += alignment.cycle }
        return start
    }
    var moments = starts.indices.flatMap {
        [(at: starts[$0], watch: $0, end: false), (at: starts[$0] + span, watch: $0, end: true)]
    }
    moments.sort { $0.at < $1.at }
    var first: [Int: (cost: IdleCost, logged: Int)] = [:]
    var costs: [Int: IdleCost] = [:]
    // What the watch said during its span: a socket that went down sets off a round of listings.
    var said: [Int: [String]] = [:]
    let hours = Double(span.components.seconds) / 3600
    for moment in moments {
        try await Task.sleep(until: moment.at, clock: .continuous)
        let (devnet, process) = (watches[moment.watch].devnet, watches[moment.watch].process)
        let sample = try IdleCost.sample(devnet, process)
        let logged = process.logLines
        if moment.end, let start = first[moment.watch] {
            costs[moment.watch] = sample.since(start.cost, perHour: hours)
            said[moment.watch] = Array(logged.dropFirst(start.logged))
        } else {
            first[moment.watch] = (sample, logged.count)
        }
    }

    var bursts = [[[Double]]](repeating: [], count: sizes.count)
    for watch in watches { try await watch.warmUp() }
    for round in 0..<rounds {
        for (index, watch) in watches.enumerated() { bursts[index].append(try await watch.burst(round)) }
    }
    return figures(
        sizes, sizes.indices.map { costs[$0]! }, sizes.indices.map { said[$0] ?? [] }, bursts,
        span: span)
}

private func cpuName(_ size: Int) -> String {
    size == 1 ? "idle watch of 1 account: CPU per hour" : "idle watch of \(size) accounts: CPU per hour per account"
}

private func requestsName(_ size: Int) -> String {
    size == 1
        ? "idle watch of 1 account: requests per hour"
        : "idle watch of \(size) accounts: requests per hour per account"
}

private func memoryName(_ size: Int) -> String {
    "idle watch of \(size) account\(size == 1 ? "" : "s"): resident memory"
}

private func burstName(_ size: Int) -> String {
    "burst of 100 messages to \(size) account\(size == 1 ? "" : "s"): p95"
}

/// The rows, each size's share next to the watch of one account. A burst is held to the live
/// watch's own goal, 250 ms at the 95th percentile, whatever the accounts; its ratio to the
/// same burst to one account is the curve, with no goal of its own: one slow moment of this
/// shared machine in a round moves it by 2×.
private func figures(
    _ sizes: [Int], _ costs: [IdleCost], _ said: [[String]], _ bursts: [[[Double]]], span: Duration
) -> [Figure] {
    func p(_ fraction: Double, _ sorted: [Double]) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
    let one = costs[0]
    var rows: [Figure] = []
    for (index, size) in sizes.enumerated() {
        let cost = costs[index]
        let share = 1 / Double(size)
        let peer = size == 1
        let note =
            String(
                format:
                    "measured %d s, scaled to an hour; in all %.3f CPU-s, %.0f requests (%.0f of them the sockets'), %.1f MiB",
                Int(span.components.seconds), cost.cpuSeconds, cost.requests, cost.socketRequests, cost.residentMiB)
            + (said[index].isEmpty ? "; it logged nothing" : "; it logged: " + said[index].joined(separator: " / "))
        rows.append(
            Figure(
                cpuName(size), .milliseconds, value: cost.cpuSeconds * 1000 * share,
                floor: peer ? nil : Figure.Floor(name: "1 account", value: one.cpuSeconds * 1000),
                goal: peer ? nil : .ratio(.atMost, 1.0), note: note))
        rows.append(
            Figure(
                requestsName(size), .count, value: cost.requests * share,
                floor: peer ? nil : Figure.Floor(name: "1 account", value: one.requests),
                goal: peer ? nil : .ratio(.atMost, 1.0)))
        rows.append(
            Figure(
                memoryName(size), .mebibytes, value: cost.residentMiB,
                floor: peer ? nil : Figure.Floor(name: "1 account", value: one.residentMiB),
                goal: peer ? nil : .ratio(.atMost, 2.0)))
    }
    for (index, size) in sizes.enumerated() {
        // A round at a slow moment of the machine shows as one p95 far from the others.
        let rounds = bursts[index].map { p(0.95, $0.sorted()) }.map { String(format: "%.1f", $0) }
        let sorted = bursts[index].joined().sorted()
        let note =
            "\(rounds.count) burst\(rounds.count == 1 ? "" : "s") of 100 messages from 100 senders, "
            + "\(100 / size) to each account, p95 \(rounds.joined(separator: ", ")) ms; "
            + String(format: "all: p50 %.1f ms, max %.1f ms", p(0.5, sorted), sorted.last ?? .nan)
        rows.append(
            Figure(
                burstName(size), .milliseconds, value: p(0.95, sorted),
                floor: size == 1
                    ? nil : Figure.Floor(name: "to 1 account", value: p(0.95, bursts[0].joined().sorted())),
                goal: .value(.atMost, 250), note: note))
    }
    return rows
}
