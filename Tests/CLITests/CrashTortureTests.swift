import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// Kills `adm-push` with SIGKILL at the moments of a send that matter (signed but not recorded,
/// recorded but not sent, sent but its answer not stored) in random command sequences, then
/// lets a clean `flush` finish. Counts intents lost, intents whose signal landed twice, and runs
/// whose registry does not end at the last intent. `scripts/crash-torture N` runs N trials.
@Suite("crash torture", .timeLimit(.minutes(10)))
struct CrashTortureTests {
    static let trials = ProcessInfo.processInfo.environment["CRASH_TRIALS"].flatMap(Int.init) ?? 120
    static let tokens = [String(repeating: "e5", count: 32), String(repeating: "f6", count: 32)]
    static let fcmTokens = [
        "fcm-e5-" + String(repeating: "e5", count: 20), "fcm-f6-" + String(repeating: "f6", count: 20),
    ]

    struct Queue: Decodable {
        struct Intent: Decodable {
            let token: String
            let action: String
            let attempts: [Attempt]
        }
        struct Attempt: Decodable {
            let id: String
            let outcome: String
        }
        let intents: [Intent]
    }

    struct Outcome {
        var lost = 0, landedTwice = 0, wrongRegistry = 0, killed = 0
    }

    /// One trial: a fresh account and home, 1–4 commands with a random kill point each, then a
    /// clean flush. Returns what went wrong. With adamant-ns the home is one device: the last
    /// intent is its newest token, or none, and an unregister of a token it no longer holds is
    /// no intent at all.
    static func trial(_ seed: UInt64, on network: OutboxDevnet) async throws -> Outcome {
        let ns = network.service == .ns
        var random = SeededGenerator(seed: seed)
        let passphrase = BIP39.randomMnemonic()
        let account = KeyPair(passphrase: try Passphrase(validating: passphrase))
        _ = try network.devnet.fund(account.address, amount: ADMAmount(units: ADMAmount.unitsPerADM))
        let home = "trial-\(seed)"
        var outcome = Outcome()
        var last: [String: String] = [:]
        var device: String?
        var commands = 0
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let token = (ns ? fcmTokens : tokens).randomElement(using: &random)!
            let add = Bool.random(using: &random)
            let arguments =
                add
                ? ["register", "--token", token, "--provider", ns ? "fcm" : "apns", "--deadline", "3"]
                : ["unregister", "--token", token, "--deadline", "3"]
            let point =
                Bool.random(using: &random)
                ? ["before-record", "after-record", "after-broadcast"].randomElement(using: &random)! : nil
            let result = try await network.push(
                arguments, home: home, passphrase: passphrase, extra: point.map { ["ADM_PUSH_TEST_KILL_AT": $0] } ?? [:]
            )
            if result.signal == SIGKILL {
                outcome.killed += 1
            } else if ![0, 75].contains(result.status) {
                Issue.record("seed \(seed): \(arguments[0]) exited \(result.status): \(result.stderr)")
            }
            last[token] = add ? "add" : "remove"
            guard ns else {
                commands += 1
                continue
            }
            if add {
                device = token
                commands += 1
            } else if device == nil || device == token {
                device = nil
                commands += 1
            }
        }
        let flush = try await network.push(
            ["flush", "--deadline", ns ? "40" : "20"], home: home, passphrase: passphrase)
        if flush.status != 0 { Issue.record("seed \(seed): flush exited \(flush.status): \(flush.stderr)") }
        network.settle()

        let queue = try JSONDecoder().decode(
            Queue.self,
            from: Data(try await network.push(["queue", "--json"], home: home, passphrase: passphrase).stdout.utf8))
        outcome.lost = commands - queue.intents.count
        outcome.landedTwice =
            queue.intents.filter { $0.attempts.filter { $0.outcome.hasPrefix("confirmed") }.count > 1 }.count
        let registered =
            ns
            ? Set(network.devnet.nsDevices.filter { $0.address == account.address }.map(\.token))
            : Set(network.devnet.ansRegistrations.filter { $0.address == account.address }.map(\.token))
        let expected = ns ? Set(device.map { [$0] } ?? []) : Set(last.filter { $0.value == "add" }.keys)
        if registered != expected {
            outcome.wrongRegistry = 1
            // What a reader needs to see why: this account's signals and every signal to the
            // service around them.
            let mine = network.devnet.ledgerSignals(from: account.address)
            print(
                "seed \(seed): registry \(registered.map { $0.prefix(4) }) expected \(expected.map { $0.prefix(4) }); own signals \(mine); service signals near: \(network.devnet.ledgerSignals(near: mine.map(\.height)))"
            )
        }
        return outcome
    }

    @Test(arguments: ANSMode.allCases)
    func killedSendsLoseNothingAndTheRegistryEndsAtTheLastIntent(_ mode: ANSMode) async throws {
        // The service polls on its own every two blocks, as the C# one does (10 s, blocks of 5 s):
        // concurrent trials then share its polls as strangers do.
        let network = try OutboxDevnet(mode: mode, ansPoll: .milliseconds(300))
        var total = Outcome()
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            var next = 0
            func start() {
                guard next < Self.trials / 2 else { return }
                let seed = UInt64(next) + (mode == .csharp ? 0 : 1_000_000)
                next += 1
                group.addTask { try await Self.trial(seed, on: network) }
            }
            for _ in 0..<3 { start() }
            while let outcome = try await group.next() {
                total.lost += outcome.lost
                total.landedTwice += outcome.landedTwice
                total.wrongRegistry += outcome.wrongRegistry
                total.killed += outcome.killed
                start()
            }
        }
        print(
            "crash torture (\(mode)): \(Self.trials / 2) trials, \(total.killed) processes killed; intents lost \(total.lost), intents landed twice \(total.landedTwice), registries not at the last intent \(total.wrongRegistry)"
        )
        #expect(total.lost == 0)
        #expect(total.wrongRegistry == 0)
        #expect(total.killed > 0, "the kill points were reached")
    }

    /// The same against adamant-ns, which replays each signal in its polls: it polls a little
    /// faster than blocks come, as the real one does (3 s, blocks of 5 s). A device's signals
    /// keep some seconds apart, so these trials are fewer.
    @Test func killedSendsLoseNothingAndAdamantNSEndsAtTheLastIntent() async throws {
        let network = try OutboxDevnet(service: .ns, nsPoll: .milliseconds(100))
        let trials = UInt64(max(Self.trials / 4, 1))
        var total = Outcome()
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            // Six at once: a trial mostly waits out a device's replay window.
            var next: UInt64 = 0
            func start() {
                guard next < trials else { return }
                let seed = 2_000_000 + next
                next += 1
                group.addTask { try await Self.trial(seed, on: network) }
            }
            for _ in 0..<6 { start() }
            while let outcome = try await group.next() {
                start()
                total.lost += outcome.lost
                total.wrongRegistry += outcome.wrongRegistry
                total.killed += outcome.killed
            }
        }
        print(
            "crash torture (adamant-ns): \(trials) trials, \(total.killed) processes killed; intents lost \(total.lost), devices not at the last intent \(total.wrongRegistry)"
        )
        #expect(total.lost == 0)
        #expect(total.wrongRegistry == 0)
        #expect(total.killed > 0, "the kill points were reached")
    }
}

extension Devnet {
    /// Signals to the service in blocks, read as the service reads them: (height, sender's
    /// address prefix, token prefix, action).
    func serviceSignals() -> [(height: Int64, sender: String, token: String, action: String)] {
        confirmedTransactions.compactMap { transaction in
            guard transaction.chat?.type == .signal, transaction.recipientId == ans.address,
                let height = transaction.height,
                let text = try? transaction.decryptMessage(with: ans.keyPair, partner: transaction.senderPublicKey),
                let signal = try? PushSignal(plaintext: text)
            else { return nil }
            return (
                height, String(transaction.senderPublicKey.address.description.prefix(6)),
                String(signal.token.prefix(4)), signal.action.rawValue
            )
        }
    }

    func ledgerSignals(from address: Address) -> [(height: Int64, sender: String, token: String, action: String)] {
        serviceSignals().filter { address.description.hasPrefix($0.sender) }
    }

    func ledgerSignals(near heights: [Int64]) -> [(height: Int64, sender: String, token: String, action: String)] {
        serviceSignals().filter { signal in heights.contains { abs($0 - signal.height) <= 3 } }
    }
}
