import Foundation

/// One fuzzed entry point: bytes in, and any trap, sanitizer report or broken invariant is a
/// finding. Targets never touch the network or the file system.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void

    init(_ name: String, _ run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.run = run
    }

    /// Every target. Adding one takes its file and one line here (and, best, a seed corpus in
    /// Fuzz/Corpus/<name>/).
    static let all: [FuzzTarget] = [
        FuzzTarget("transaction", TransactionFuzz.run),
        FuzzTarget("node-answers", NodeAnswersFuzz.run),
        FuzzTarget("signal", SignalFuzz.run),
        FuzzTarget("chat", ChatFuzz.run),
        FuzzTarget("passphrase", PassphraseFuzz.run),
        FuzzTarget("values", ValuesFuzz.run),
        FuzzTarget("arguments", ArgumentsFuzz.run),
        FuzzTarget("config", ConfigFuzz.run),
        FuzzTarget("devnet", DevnetFuzz.run),
        FuzzTarget("render", RenderFuzz.run),
        FuzzTarget("kvs", KVSFuzz.run),
        FuzzTarget("payload", PayloadFuzz.run),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    static let environmentKey = "ADM_FUZZ_TARGET"

    /// The target this process runs, from the environment `main` sets before any input arrives.
    static let active: FuzzTarget? = getenv(environmentKey).flatMap { named(String(cString: $0)) }
}

/// A property every input must keep; breaking it is a finding like a crash.
func invariant(_ holds: Bool, _ message: @autoclosure () -> String) {
    if !holds { fatalError("invariant broken: \(message())") }
}

/// Runs async code to completion from libFuzzer's synchronous callback.
func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

extension Array where Element == UInt8 {
    /// The input cut at every `separator` byte, for targets that take several values.
    func fields(separatedBy separator: UInt8) -> [ArraySlice<UInt8>] {
        split(separator: separator, omittingEmptySubsequences: false)
    }
}

extension ArraySlice where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
