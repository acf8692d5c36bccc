import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantDevnet
import AdamantFetch
import AdamantNodes
import AdamantStore
import Foundation

/// `adm-fetch TXN_ID --json --no-names` as a whole cold process against a devnet of 3 nodes,
/// next to `curl -s` of the same transaction's URL; its peak RSS; and a cold fetch whose
/// first-ranked node (as the health cache says) accepts connections and never answers.
func coldFetchBenchmark() async throws -> [Figure] {
    let cold = "cold adm-fetch TXN --json --no-names"
    let rss = "adm-fetch peak RSS"
    let silent = "cold adm-fetch, cached best node blackholed"
    let named = "cold adm-fetch TXN --json, names looked up"
    let lived = "cold adm-fetch --no-names, 2,000 fetches in its home"
    let proxied = "cold adm-fetch --no-names through a loopback SOCKS5 proxy"
    let translated = "cold adm-fetch --no-names in Russian, minus in English"
    guard let fetch = Spawn.sibling("adm-fetch"), let curl = Spawn.curl() else {
        let reason = Spawn.missing("adm-fetch", orCurl: true)
        return [
            .skipped(cold, .milliseconds, goal: .ratio(.atMost, 1.5), because: reason),
            .skipped(named, .milliseconds, goal: .ratio(.atMost, 2.0), because: reason),
            .skipped(lived, .milliseconds, goal: .ratio(.atMost, 1.5), because: reason),
            .skipped(rss, .mebibytes, goal: .value(.atMost, 20), because: reason),
            .skipped(silent, .milliseconds, goal: .ratio(.atMost, 1.0), because: reason),
            .skipped(proxied, .milliseconds, goal: .ratio(.atMost, 1.2), because: reason),
            .skipped(translated, .milliseconds, goal: .value(.atMost, 0.3), because: reason),
        ]
    }
    let devnet = try benchDevnet(freshAccounts: 2)
    defer { devnet.stop() }
    let (me, friend) = (devnet.accounts[0].account, devnet.accounts[1].account)
    let id = try devnet.send(from: friend.address, to: me.address, kind: .message, message: "benchmark")
    devnet.mine()

    let home = try temporaryDirectory("fetch")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let environment = [
        "ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": me.passphrase, "ADM_PUSH_HOME": home,
    ]
    let ours = Spawn.Command(
        path: fetch, arguments: [id.description, "--json", "--no-names"], environment: environment)
    let url = devnet.nodeURLs[0] + "/api/transactions/get?id=\(id)&returnAsset=1"

    // measures health; leaves the cache later runs start from
    _ = try Spawn.run(fetch, ours.arguments, environment: environment)
    let cache = URL(fileURLWithPath: home + "/" + HealthCache.fileName)
    let healthyCache = try Data(contentsOf: cache)
    let (fetches, curls, fetchPeak, curlPeak) = try Spawn.paired(
        Budget(iterations: 50, seconds: 10), ours: ours, peer: Spawn.Command(path: curl, arguments: ["-s", url]))
    // The command as a push's extension runs it: the sender's name is looked up in the
    // account's address book (none here, and that answer is cached like any other).
    let withNames = Spawn.Command(path: fetch, arguments: [id.description, "--json"], environment: environment)
    _ = try Spawn.run(fetch, withNames.arguments, environment: environment)
    let (namedFetches, namedCurls, _, _) = try Spawn.paired(
        Budget(iterations: 50, seconds: 10), ours: withNames, peer: Spawn.Command(path: curl, arguments: ["-s", url]))

    // A home as a user's is after a while: the log written by 2,000 earlier processes.
    let livedIn = try temporaryDirectory("fetch-lived-in")
    defer { try? FileManager.default.removeItem(atPath: livedIn) }
    try await fillLog(in: livedIn, fetches: 2_000, account: me.address)
    try healthyCache.write(to: URL(fileURLWithPath: livedIn + "/" + HealthCache.fileName))
    var livedInEnvironment = environment
    livedInEnvironment["ADM_PUSH_HOME"] = livedIn
    let (livedFetches, livedCurls, _, _) = try Spawn.paired(
        Budget(iterations: 50, seconds: 10),
        ours: Spawn.Command(path: fetch, arguments: ours.arguments, environment: livedInEnvironment),
        peer: Spawn.Command(path: curl, arguments: ["-s", url]))

    // Through microsocks on loopback, next to the same fetch direct, each from a home of its
    // own: the health cache is kept per route.
    let throughProxy: Figure
    if LoopbackProxy.isInstalled {
        let proxy = try LoopbackProxy()
        let proxiedHome = try temporaryDirectory("fetch-proxied")
        defer { try? FileManager.default.removeItem(atPath: proxiedHome) }
        var proxiedEnvironment = environment
        proxiedEnvironment["ADM_PUSH_HOME"] = proxiedHome
        proxiedEnvironment["ADM_PROXY"] = proxy.url
        let viaProxy = Spawn.Command(path: fetch, arguments: ours.arguments, environment: proxiedEnvironment)
        _ = try Spawn.checked(viaProxy)
        let (proxiedFetches, directFetches, _, _) = try Spawn.paired(
            Budget(iterations: 50, seconds: 10), ours: viaProxy, peer: ours)
        throughProxy = Figure(
            proxied, .milliseconds, value: proxiedFetches.median,
            floor: Figure.Floor(name: "the same, direct", value: directFetches.median),
            goal: .ratio(.atMost, 1.2),
            note: "through \(proxy.url) \(proxiedFetches.summary), direct \(directFetches.summary)")
    } else {
        throughProxy = .skipped(
            proxied, .milliseconds, goal: .ratio(.atMost, 1.2), because: "microsocks is not installed")
    }

    // Under a translated locale, next to English in the same run, a transfer with a comment:
    // its sentence looked up in the catalog, the locale made, the amount written as Russian
    // writes numbers (a message's text alone would need no word of the catalog).
    let inRussian: Figure
    if FileManager.default.fileExists(
        atPath: Wording.catalogDirectory(environment: [:]) + "/ru/LC_MESSAGES/adm-push.mo")
    {
        let transfer = try devnet.send(
            from: friend.address, to: me.address, kind: .transfer, message: "for the tickets",
            amount: ADMAmount(units: 250_000_000))
        devnet.mine()
        let arguments = [transfer.description, "--json", "--no-names"]
        var russian = environment
        russian["LANG"] = "ru_RU.UTF-8"
        var english = environment
        english["LANG"] = "en_US.UTF-8"
        let russianFetch = Spawn.Command(path: fetch, arguments: arguments, environment: russian)
        // What is measured is Russian: the sentence is the catalog's, not the code's.
        let spoken = try Spawn.run(
            "/bin/sh", ["-c", #""$0" "$@" | grep -q 'Вы получили 2,5 ADM'"#, fetch] + arguments, environment: russian)
        guard spoken.exitStatus == 0 else {
            throw BenchmarkError(description: "adm-fetch under ru_RU.UTF-8 did not speak Russian (is the locale made?)")
        }
        let englishFetch = Spawn.Command(path: fetch, arguments: arguments, environment: english)
        // Each Russian run next to the English one after it: the median of the 200 differences,
        // which a loaded machine moves far less than either median.
        var differences: [Double] = []
        var (russianRuns, englishRuns): ([Double], [Double]) = ([], [])
        for _ in 0..<200 {
            let (russianRun, englishRun) = (try Spawn.checked(russianFetch), try Spawn.checked(englishFetch))
            russianRuns.append(russianRun.milliseconds)
            englishRuns.append(englishRun.milliseconds)
            differences.append(russianRun.milliseconds - englishRun.milliseconds)
        }
        inRussian = Figure(
            translated, .milliseconds, value: Timing(differences).median, goal: .value(.atMost, 0.3),
            note:
                "median of 200 paired differences; ru_RU.UTF-8 \(Timing(russianRuns).summary), en_US.UTF-8 \(Timing(englishRuns).summary)"
        )
    } else {
        inRussian = .skipped(
            translated, .milliseconds, goal: .value(.atMost, 0.3), because: "no compiled catalogs (scripts/locales)")
    }

    // The cache's best node goes silent; each run starts from the healthy cache again.
    let snapshot = try JSONDecoder().decode(HealthFile.self, from: healthyCache).snapshot
    let best = snapshot.nodes.filter(\.usable).min { ($0.latencyMicros ?? .max) < ($1.latencyMicros ?? .max) }
    guard let best, let index = devnet.nodeURLs.firstIndex(of: best.endpoint) else {
        throw BenchmarkError(description: "no usable node in the cache")
    }
    try devnet.add(Fault(.blackhole), toNode: index)
    var blackholed: [Spawn.Run] = []
    let start = now()
    while Budget(iterations: 20, seconds: 10).allowsAnother(after: blackholed.count, startedAt: start) {
        try healthyCache.write(to: cache)
        blackholed.append(try Spawn.checked(ours))
    }
    try devnet.clearFaults(ofNode: index)

    let hedge = NodePool.Configuration().hedgeDelayBounds.lowerBound.milliseconds
    return [
        Figure(
            cold, .milliseconds, value: fetches.median, floor: Figure.Floor(name: "curl -s", value: curls.median),
            goal: .ratio(.atMost, 1.5), note: "ours \(fetches.summary), curl \(curls.summary)"),
        Figure(
            named, .milliseconds, value: namedFetches.median,
            floor: Figure.Floor(name: "curl -s", value: namedCurls.median),
            goal: .ratio(.atMost, 2.0),
            note: "a push's fetch with names; ours \(namedFetches.summary), curl \(namedCurls.summary)"),
        Figure(
            lived, .milliseconds, value: livedFetches.median,
            floor: Figure.Floor(name: "curl -s", value: livedCurls.median),
            goal: .ratio(.atMost, 1.5), note: "ours \(livedFetches.summary), curl \(livedCurls.summary)"),
        peakFigure(rss, ours: fetchPeak, curl: curlPeak),
        Figure(
            silent, .milliseconds, value: blackholed.timing.median,
            floor: Figure.Floor(name: "hedge + 2× cold", value: hedge + 2 * fetches.median), goal: .ratio(.atMost, 1.0),
            note: "\(blackholed.timing.summary); bound: hedge delay \(Int(hedge)) ms + 2 × cold median"),
        throughProxy, inRussian,
    ]
}

/// The notification log as `fetches` cold fetches leave it: one process, one connection and
/// one commit each.
private func fillLog(in home: String, fetches: Int, account: Address) async throws {
    let clock = SystemWallClock()
    for number in 1...UInt64(fetches) {
        let log = try NotificationLog(home: home)
        _ = try await log.recordShown(
            TransactionID(number: number), account: account, pushed: true, at: clock.unixMillis())
    }
}

/// The health cache's file, as `HealthCache` writes it.
private struct HealthFile: Decodable {
    var snapshot: HealthSnapshot
}
