import Foundation
import Synchronization

/// One fuzzed entry point: bytes in, and any trap, sanitizer report or broken invariant is a
/// finding. Targets never touch the network; only the store targets touch the file system, in
/// homes of their own (`ScratchHome`).
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void
    /// Seeds made by the project's own code (signed, encrypted, or fitted to a file built at
    /// run time), for `adm-fuzz --write-seeds`; nil when they are written otherwise (Fuzz/make_corpus.py, or by hand).
    let seeds: (@Sendable () -> [Seed])?

    init(_ name: String, _ run: @escaping @Sendable ([UInt8]) -> Void, seeds: (@Sendable () -> [Seed])? = nil) {
        self.name = name
        self.run = run
        self.seeds = seeds
    }

    /// Every target. Adding one takes its file and one line here (and, best, a seed corpus in
    /// Fuzz/Corpus/<name>/).
    static let all: [FuzzTarget] = [
        FuzzTarget("transaction", TransactionFuzz.run),
        FuzzTarget("node-answers", NodeAnswersFuzz.run),
        FuzzTarget("signal", SignalFuzz.run),
        FuzzTarget("chat", ChatFuzz.run),
        FuzzTarget("passphrase", PassphraseFuzz.run),
        FuzzTarget("catalog", CatalogFuzz.run),
        FuzzTarget("values", ValuesFuzz.run),
        FuzzTarget("proxy", ProxyFuzz.run),
        FuzzTarget("arguments", ArgumentsFuzz.run),
        FuzzTarget("config", ConfigFuzz.run),
        FuzzTarget("devnet", DevnetFuzz.run),
        FuzzTarget("render", RenderFuzz.run),
        FuzzTarget("kvs", KVSFuzz.run),
        FuzzTarget("payload", PayloadFuzz.run),
        FuzzTarget("coding", CodingFuzz.run),
        FuzzTarget("socket", SocketFuzz.run),
        FuzzTarget("own-signals", OwnSignalsFuzz.run, seeds: OwnSignalsFuzz.seeds),
        FuzzTarget("outbox-store", OutboxStoreFuzz.run, seeds: OutboxStoreFuzz.seeds),
        FuzzTarget("bus", BusFuzz.run, seeds: BusFuzz.seeds),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    static let environmentKey = "ADM_FUZZ_TARGET"

    /// The target this process runs, from the environment `main` sets before any input arrives.
    static let active: FuzzTarget? = getenv(environmentKey).flatMap { named(String(cString: $0)) }
}

/// A seed input and the name of its file in Fuzz/Corpus/<target>/.
struct Seed: Sendable {
    let name: String
    let bytes: [UInt8]
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

/// The same, for code with a result.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    runBlocking {
        let value = await body()
        result.value.withLock { $0 = value }
    }
    guard let value = result.value.withLock({ $0 }) else { fatalError("runBlocking returned before its body") }
    return value
}

private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
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
