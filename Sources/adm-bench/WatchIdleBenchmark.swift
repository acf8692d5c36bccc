import AdamantCore
import AdamantDevnet
import Foundation

/// What an idle `adm-fetch watch` costs per hour, live next to `--no-live` at the defaults:
/// CPU time, HTTP requests (the nodes' API and their sockets) and resident memory, each
/// process on a devnet of its own with 3 nodes, real nodes' 25 s ping and 5 s blocks, measured
/// for a few minutes and scaled.
func watchIdleBenchmark() async throws -> [Figure] {
    let cpu = "idle watch CPU per hour, live next to --no-live"
    let requests = "idle watch requests per hour, live next to --no-live"
    let memory = "idle watch resident memory, live next to --no-live"
    guard let fetch = Spawn.sibling("adm-fetch") else {
        let reason = Spawn.missing("adm-fetch")
        return [
            .skipped(cpu, .seconds, goal: .ratio(.atMost, 1.0), because: reason),
            .skipped(requests, .count, goal: .ratio(.atMost, 2.0), because: reason),
            .skipped(memory, .mebibytes, goal: .ratio(.atMost, 1.2), because: reason),
        ]
    }
    #if DEBUG
        let span: Duration = .seconds(5)
    #else
        let span: Duration = .seconds(180)
    #endif
    let root = try temporaryDirectory("watch-idle")
    defer { try? FileManager.default.removeItem(atPath: root) }
    var measured: [IdleCost] = []
    var running: [(Devnet, WatchingProcess)] = []
    defer {
        for (devnet, watch) in running {
            watch.stop()
            devnet.stop()
        }
    }
    for live in [true, false] {
        let devnet = try benchDevnet(freshAccounts: 1) { configuration in
            configuration.blockTime = .seconds(5)
            configuration.poolInterval = .seconds(1)
        }
        let watch = try WatchingProcess(
            fetch, live ? [] : ["--no-live"],
            environment: [
                "ADM_NODES": devnet.nodeURLs.joined(separator: ","),
                "ADM_PASSPHRASE": devnet.accounts[0].account.passphrase,
                "ADM_PUSH_HOME": root + (live ? "/live" : "/polled"),
            ])
        running.append((devnet, watch))
        try watch.waitForLog(live ? "watch: live on" : "Watching ", within: .seconds(30))
    }
    // Both settle first (the second socket, the first poll rounds), then both are measured at once.
    try await Task.sleep(for: .seconds(2))
    let starts = try running.map { try IdleCost.sample($0.0, $0.1) }
    try await Task.sleep(for: span)
    let ends = try running.map { try IdleCost.sample($0.0, $0.1) }
    let hours = Double(span.components.seconds) / 3600
    for (start, end) in zip(starts, ends) { measured.append(end.since(start, perHour: hours)) }
    let (live, polled) = (measured[0], measured[1])
    let note = String(
        format:
            "measured %d s, scaled to an hour; live %.2f CPU-s, %.0f requests (%.0f of them the sockets'), %.1f MiB; --no-live %.2f CPU-s, %.0f requests, %.1f MiB",
        Int(span.components.seconds), live.cpuSeconds, live.requests, live.socketRequests, live.residentMiB,
        polled.cpuSeconds, polled.requests,
        polled.residentMiB)
    return [
        Figure(
            cpu, .seconds, value: live.cpuSeconds, floor: Figure.Floor(name: "--no-live", value: polled.cpuSeconds),
            goal: .ratio(.atMost, 1.0), note: note),
        Figure(
            requests, .count, value: live.requests, floor: Figure.Floor(name: "--no-live", value: polled.requests),
            goal: .ratio(.atMost, 2.0), note: note),
        Figure(
            memory, .mebibytes, value: live.residentMiB,
            floor: Figure.Floor(name: "--no-live", value: polled.residentMiB), goal: .ratio(.atMost, 1.2), note: note),
    ]
}

/// A watch process's cumulative cost at one moment, or (after `since`) over a span, per hour.
struct IdleCost {
    var cpuSeconds: Double
    var requests: Double
    var socketRequests: Double
    var residentMiB: Double

    static func sample(_ devnet: Devnet, _ watch: WatchingProcess) throws -> IdleCost {
        let pid = watch.processIdentifier
        // The process's CPU clock, every thread's time to the nanosecond, those that ended
        // too: /proc's utime and stime count 10 ms ticks, and an idle watch uses a few in minutes.
        var clock = clockid_t()
        var now = timespec()
        let found = clock_getcpuclockid(pid, &clock)  // an error number itself, not errno
        guard found == 0, clock_gettime(clock, &now) == 0 else {
            throw BenchmarkError(
                description:
                    "cannot read the CPU clock of process \(pid): \(String(cString: strerror(found != 0 ? found : errno)))"
            )
        }
        let cpu = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let rss =
            status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ").dropFirst().first
            .flatMap { Double($0) } ?? .nan
        var api = 0
        var socket = 0
        for index in devnet.nodeURLs.indices {
            api += try devnet.requests(toNode: index).count
            socket += try devnet.socketRequests(toNode: index)
        }
        return IdleCost(
            cpuSeconds: cpu, requests: Double(api + socket), socketRequests: Double(socket), residentMiB: rss / 1024)
    }

    /// The cost between `start` and this, per hour of `hours`; memory as it is now.
    func since(_ start: IdleCost, perHour hours: Double) -> IdleCost {
        IdleCost(
            cpuSeconds: (cpuSeconds - start.cpuSeconds) / hours, requests: (requests - start.requests) / hours,
            socketRequests: (socketRequests - start.socketRequests) / hours, residentMiB: residentMiB)
    }
}
