import Foundation

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

/// Samples in milliseconds, summarised.
struct Timing: Sendable {
    let median: Double
    let p99: Double
    let runs: Int

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        median = sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        p99 = sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        runs = sorted.count
    }

    var summary: String { String(format: "p99 %.2f ms, %d runs", p99, runs) }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func milliseconds(since start: UInt64) -> Double { Double(now() - start) / 1e6 }

/// Enough runs for a stable median without letting a loaded machine take minutes: stops
/// after `iterations` runs or once `seconds` have passed, whichever is first, but never before
/// `minimum` runs. A debug build (the tests run one) only shows the report's shape, so it
/// measures for half a second at most.
struct Budget {
    let iterations: Int
    let seconds: Double
    let minimum: Int

    init(iterations: Int, seconds: Double = 3, minimum: Int = 5) {
        self.iterations = iterations
        #if DEBUG
            self.seconds = min(seconds, 0.5)
            self.minimum = 1
        #else
            self.seconds = seconds
            self.minimum = minimum
        #endif
    }

    func allowsAnother(after runs: Int, startedAt start: UInt64) -> Bool {
        runs < minimum || (runs < iterations && milliseconds(since: start) < seconds * 1e3)
    }
}

/// How long one run of `body` took, in milliseconds. Runs on the caller's actor, so the body
/// need not be Sendable.
nonisolated(nonsending) func elapsed(_ body: () async throws -> Void) async rethrows -> Double {
    let begin = now()
    try await body()
    return milliseconds(since: begin)
}

/// Times `body` once per run. Runs on the caller's actor, so the body need not be Sendable.
nonisolated(nonsending) func timings(_ budget: Budget, _ body: () async throws -> Void) async rethrows -> Timing {
    var samples: [Double] = []
    let start = now()
    while budget.allowsAnother(after: samples.count, startedAt: start) {
        samples.append(try await elapsed(body))
    }
    return Timing(samples)
}

/// Times `ours` and `floor` alternately, so both see the same noise of a shared machine.
nonisolated(nonsending) func pairedTimings(
    _ budget: Budget, ours: () async throws -> Void, floor: () async throws -> Void
) async rethrows -> (ours: Timing, floor: Timing) {
    var oursSamples: [Double] = []
    var floorSamples: [Double] = []
    let start = now()
    while budget.allowsAnother(after: oursSamples.count, startedAt: start) {
        oursSamples.append(try await elapsed(ours))
        floorSamples.append(try await elapsed(floor))
    }
    return (Timing(oursSamples), Timing(floorSamples))
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
}

/// This process's memory from /proc/self/status, in MiB.
enum Memory {
    struct Sample: Sendable {
        /// VmRSS: resident now.
        let resident: Double
        /// VmHWM: the most resident since the start or the last `resetPeak`.
        let peak: Double
    }

    static func sample() -> Sample {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            let kib = line?.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? .nan
            return kib / 1024
        }
        return Sample(resident: field("VmRSS"), peak: field("VmHWM"))
    }

    /// Makes VmHWM start again from the resident size (clear_refs "5"), so a peak belongs to
    /// what follows. Best effort: without it, the peak is the whole run's.
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }
}
