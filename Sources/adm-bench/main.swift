// adm-bench: the performance targets of docs/performance.md, measured on this machine, each next
// to its floor or peer from the same run. `swift build -c release && .build/release/adm-bench`.
import AdamantCLI
import AdamantCore
import Foundation

struct Benchmark {
    let name: String
    /// One line for `--help`.
    let summary: String
    let run: () async throws -> [Figure]
}

let benchmarks = [
    Benchmark(name: "keys", summary: "passphrase → key pair, next to the same libsodium calls", run: keysBenchmark),
    Benchmark(
        name: "verify-decrypt", summary: "5,000 chats from 20 partners verified and decrypted, next to libsodium",
        run: verifyDecryptBenchmark),
    Benchmark(
        name: "outbox", summary: "a durable register --no-wait commit, next to a bare SQLite commit",
        run: outboxBenchmark),
    Benchmark(name: "read", summary: "a read with the first-ranked of 3 nodes silent, in process", run: readBenchmark),
    Benchmark(
        name: "fetch", summary: "cold adm-fetch next to curl; with the cached best node silent", run: coldFetchBenchmark
    ),
    Benchmark(
        name: "nodes", summary: "cold adm-push nodes next to curl asking the same 3 URLs", run: coldNodesBenchmark),
    Benchmark(
        name: "register", summary: "cold adm-push register --no-wait next to curl POST + a bare commit",
        run: coldRegisterBenchmark),
    Benchmark(
        name: "watch-scale", summary: "watch over a 100,000-transaction backlog: throughput and memory",
        run: watchScaleBenchmark),
    Benchmark(
        name: "watch-latency", summary: "message to notification line, watch live next to --no-live, 5 s blocks",
        run: watchLatencyBenchmark),
    Benchmark(
        name: "watch-idle", summary: "an idle watch's CPU, requests and memory per hour, live next to --no-live",
        run: watchIdleBenchmark),
    Benchmark(
        name: "watch-accounts", summary: "one watch of 1, 10 and 100 accounts: idle cost per account, a burst's p95",
        run: watchAccountsBenchmark),
    Benchmark(
        name: "desktop", summary: "a desktop notification next to notify-send; what --notify adds to an idle watch",
        run: desktopBenchmark),
    Benchmark(
        name: "outbox-scale", summary: "flush and status with up to 10,000 tokens and 100,000 own signals",
        run: outboxScaleBenchmark),
]

let output = Output()
var exitCode = ExitCode.success
let usage = "Usage: adm-bench [--json] [<benchmark> ...]"

let help = """
    OVERVIEW: Measure adm-push's performance targets (docs/performance.md) on this machine, each
    next to its floor or peer measured in the same run, and print one table (use a release build:
    swift build -c release && .build/release/adm-bench).

    USAGE: adm-bench [--json] [<benchmark> ...]

    BENCHMARKS:
    \(benchmarks.map { "  " + $0.name + String(repeating: " ", count: 16 - $0.name.count) + $0.summary }.joined(separator: "\n"))

      With no name, every benchmark runs (the scale ones take minutes). The cold ones need
      adm-fetch and adm-push built beside adm-bench, and curl; without them they are skipped.

    OPTIONS:
      --json          Print {"machine": {...}, "figures": [...]} instead of the table.
      -h, --help      Show help information.

    EXIT CODES:
      0    every benchmark ran (whether or not it met its goal)
      1    a benchmark failed (the reason is printed)
      64   usage error
      74   output could not be written
    """

/// What the command line asks for; nil after help or a usage error, which `exitCode` tells apart.
@MainActor func parse(_ arguments: [String]) -> (selected: [Benchmark], json: Bool)? {
    let names = benchmarks.map(\.name)
    for argument in arguments where !names.contains(argument) && argument != "--json" {
        if ["-h", "--help", "help"].contains(argument) { continue }
        if argument.hasPrefix("-") {
            output.error("Error: unknown option \(argument.quoted)")
        } else {
            let hint =
                Spelling.nearest(to: argument, in: names).map { " (did you mean '\($0)'?)" }
                ?? " (one of: \(names.joined(separator: ", ")))"
            output.error("Error: unknown benchmark \(argument.quoted)\(hint)")
        }
        output.error(usage)
        output.error("  See 'adm-bench --help' for the benchmarks.")
        exitCode = .usage
        return nil
    }
    if arguments.contains(where: { ["-h", "--help", "help"].contains($0) }) {
        output.print(help)
        return nil
    }
    let chosen = arguments.filter { $0 != "--json" }
    return (benchmarks.filter { chosen.isEmpty || chosen.contains($0.name) }, arguments.contains("--json"))
}

if let request = parse(Array(CommandLine.arguments.dropFirst())) {
    let progress = isatty(2) == 1  // a terminal watching a long run; never a log or a test
    var figures: [Figure] = []
    for benchmark in request.selected {
        if progress { output.error("adm-bench: \(benchmark.name)…") }
        do {
            for var figure in try await benchmark.run() {
                figure.benchmark = benchmark.name
                figures.append(figure)
            }
        } catch {
            figures.append(.failed(benchmark.name, because: "\(error)"))
            exitCode = .rejected
        }
    }
    let machine = Machine.current()
    if request.json {
        output.printJSON(ReportJSON(machine: machine, figures: figures))
    } else {
        output.print(Table.lines(figures, machine: machine).joined(separator: "\n"))
    }
}
if exitCode == .success, output.firstFailure != nil { exitCode = .outputFailed }
exit(exitCode.rawValue)
