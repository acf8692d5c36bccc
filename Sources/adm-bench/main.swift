// adm-bench: the performance targets of DESIGN.md, measured on this machine.
// Run with `swift run -c release adm-bench [name…]`; with no name it runs them all.
import AdamantCore
import Foundation

struct Benchmark {
    let name: String
    let target: String
    let run: () throws -> String
}

/// Median and p99 of `iterations` timed calls, in milliseconds.
func timings(iterations: Int, _ body: () throws -> Void) rethrows -> (median: Double, p99: Double) {
    var samples = [Double]()
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    samples.sort()
    return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 99 / 100)])
}

let benchmarks = [
    Benchmark(name: "keys", target: "passphrase → keys ≤ 1.3 ms") {
        let phrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
        let passphrase = try Passphrase(validating: phrase)
        let t = timings(iterations: 500) { _ = KeyPair(passphrase: passphrase) }
        return String(format: "median %.3f ms, p99 %.3f ms", t.median, t.p99)
    },
    Benchmark(name: "verify-decrypt", target: "watch verify + decrypt ≥ 15k tx/s on one core") {
        // 20 partners writing to one account: shared keys are cached per partner, as a poller does.
        let me = KeyPair.random()
        let partners = (0..<20).map { _ in KeyPair.random() }
        let transactions = try (0..<5_000).map { i in
            let partner = partners[i % partners.count]
            let asset = try ChatKey(secretKey: partner.secretKey, partner: me.publicKey).seal("message number \(i)")
            return try Transaction.chat(asset, to: me.address, timestamp: Int32(i), signedBy: partner)
        }
        var keys = [PublicKey: ChatKey]()
        let start = DispatchTime.now().uptimeNanoseconds
        for transaction in transactions {
            try transaction.verify()
            let partner = transaction.senderPublicKey
            let key = try keys[partner] ?? ChatKey(secretKey: me.secretKey, partner: partner)
            keys[partner] = key
            _ = try key.open(transaction.chat!)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return String(format: "%.0f tx/s", Double(transactions.count) / seconds)
    },
]

let selected = CommandLine.arguments.dropFirst()
for benchmark in benchmarks where selected.isEmpty || selected.contains(benchmark.name) {
    do {
        print("\(benchmark.name): \(try benchmark.run())   (target: \(benchmark.target))")
    } catch {
        print("\(benchmark.name): failed: \(error)")
    }
}
