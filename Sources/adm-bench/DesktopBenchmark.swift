import AdamantCore
import AdamantDesktop
import AdamantDevnet
import AdamantFetch
import AdamantNodes
import Foundation

/// A desktop notification from this process next to a `notify-send` process showing the same,
/// and what `--notify` adds to an idle watch's memory. Needs a session bus with a notification
/// service: `scripts/with-desktop .build/release/adm-bench desktop`.
func desktopBenchmark() async throws -> [Figure] {
    let one = "one desktop notification, in process"
    let memory = "idle watch --notify resident memory"
    let environment = ProcessInfo.processInfo.environment
    let notifySend = "/usr/bin/notify-send"
    guard environment["DBUS_SESSION_BUS_ADDRESS"] != nil, FileManager.default.isExecutableFile(atPath: notifySend),
        let fetch = Spawn.sibling("adm-fetch")
    else {
        let reason =
            "needs a session bus with a notification service, notify-send and adm-fetch: scripts/with-desktop .build/release/adm-bench desktop"
        return [
            .skipped(one, .milliseconds, goal: .ratio(.atMost, 0.5), because: reason),
            .skipped(memory, .mebibytes, goal: .ratio(.atMost, 1.2), because: reason),
        ]
    }
    let notifier = try await DesktopNotifier.connect(environment: environment)
    var sent: UInt64 = 0
    // Each from a partner of its own, so none replaces another: one Notify each, as notify-send makes.
    let ours = try await timings(Budget(iterations: 300, seconds: 3, minimum: 20)) {
        sent += 1
        let partner = Address(number: sent)
        _ = try await notifier.notify(
            NotificationDelivery.Bubble(
                serial: Int(sent),
                presentation: .init(
                    title: partner.description, body: "benchmark message \(sent)", showsText: true, urgency: .normal,
                    silent: false),
                count: nil, replacing: 0, actions: true))
    }
    let peer = try await timings(Budget(iterations: 100, seconds: 3, minimum: 10)) {
        sent += 1
        let run = try Spawn.run(
            notifySend, ["-a", "ADAMANT", "-c", "im.received", "U\(sent)", "benchmark message \(sent)"],
            environment: environment)
        guard run.exitStatus == 0 else { throw BenchmarkError(description: "notify-send exited \(run.exitStatus)") }
    }

    // Two idle watches on one devnet, one with --notify, each with its own home.
    let devnet = try benchDevnet(freshAccounts: 2)
    defer { devnet.stop() }
    let root = try temporaryDirectory("desktop")
    defer { try? FileManager.default.removeItem(atPath: root) }
    var watches: [WatchingProcess] = []
    defer { for watch in watches { watch.stop() } }
    for (index, notify) in [false, true].enumerated() {
        var variables = environment
        variables["ADM_NODES"] = devnet.nodeURLs.joined(separator: ",")
        variables["ADM_PASSPHRASE"] = devnet.accounts[index].account.passphrase
        variables["ADM_PUSH_HOME"] = root + "/\(index)"
        let watch = try WatchingProcess(fetch, notify ? ["--notify"] : [], environment: variables)
        watches.append(watch)
        try watch.waitForLog("watch: live on", within: .seconds(30))
    }
    try await Task.sleep(for: .seconds(5))
    let resident = try watches.map { watch in
        let status = try String(contentsOfFile: "/proc/\(watch.processIdentifier)/status", encoding: .utf8)
        let kib = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ").dropFirst()
            .first.flatMap { Double($0) }
        guard let kib else { throw BenchmarkError(description: "no VmRSS for the watch") }
        return kib / 1024
    }
    return [
        Figure(
            one, .milliseconds, value: ours.median,
            floor: Figure.Floor(name: "notify-send process", value: peer.median), goal: .ratio(.atMost, 0.5),
            note: "Notify over the session bus from a connected notifier; " + ours.summary + "; notify-send "
                + peer.summary),
        Figure(
            memory, .mebibytes, value: resident[1], floor: Figure.Floor(name: "without --notify", value: resident[0]),
            goal: .ratio(.atMost, 1.2),
            note: "two idle live watches of one devnet, 5 s after their sockets came up"),
    ]
}
