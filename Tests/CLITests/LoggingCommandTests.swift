import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A command that runs until signalled, its stdout and stderr in files of its own, so a test
/// reads them while it runs and knows the stderr file's device and inode (what systemd puts
/// in JOURNAL_STREAM).
final class LoggingProcess: Sendable {
    private let process: BackgroundProcess
    /// `device:inode` of the stderr file.
    let stream: String

    init(
        _ tool: String, _ arguments: [String], environment: @Sendable (_ stream: String) -> [String: String],
        folder: String, name: String,
        standardError terminal: FileHandle? = nil
    ) throws {
        nonisolated(unsafe) var stream = ""
        process = try BackgroundProcess(
            tool, arguments, folder: folder, name: name, standardError: terminal, timeout: 120
        ) { file in
            var status = stat()
            guard fstat(file.fileDescriptor, &status) == 0 else {
                throw WatchTestFailure("fstat of the stderr file failed")
            }
            stream = "\(status.st_dev):\(status.st_ino)"
            return environment(stream)
        }
        self.stream = stream
    }

    var stdout: String { process.stdout }
    var stderr: String { process.stderr }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    func until(_ what: String, within seconds: Double = 60, _ condition: @Sendable () -> Bool) async throws {
        try await process.until(what, within: seconds, condition)
    }

    func stop(_ signal: Int32 = SIGTERM) async throws -> RunResult { try await process.stop(signal) }
}

/// `2026-12-01T14:30:00.123Z info  ` and the like.
private func isTimestamped(_ line: String, level: String? = nil) -> Bool {
    guard let match = line.prefixMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (debug|info |warn |error) /#) else {
        return false
    }
    return level.map { String(match.1) == $0 } ?? true
}

@Suite("logging of flush --loop and watch", .timeLimit(.minutes(4)))
struct LoggingCommandTests {
    static let token = String(repeating: "d4", count: 32)

    /// An add of `token` kept in the outbox, not yet sent.
    static func queueAnAdd(_ network: OutboxDevnet) async throws {
        let register = try await network.push(["register", "--token", token, "--provider", "apns", "--no-wait"])
        #expect(register.status == 75, "\(register.stderr)")
    }

    /// `flush --loop` on the account's home, passes a second apart; `journal`: JOURNAL_STREAM
    /// names its stderr.
    static func flushLoop(
        _ network: OutboxDevnet, _ extraArguments: [String] = [], environment: [String: String] = [:], journal: Bool,
        name: String,
        deadline: String = "10"
    ) async throws -> LoggingProcess {
        let home = network.home + "/home"
        let arguments =
            [
                "flush", "--loop", "--interval", "1", "--deadline", deadline, "--home", home, "--service-address",
                network.devnet.ans.address.description,
                "--service-public-key", network.devnet.ans.publicKey.hex,
            ] + extraArguments
        let base = ["ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.passphrase]
            .merging(environment) { $1 }
        return try LoggingProcess(
            "adm-push", arguments,
            environment: { stream in
                journal ? base.merging(["JOURNAL_STREAM": stream]) { $1 } : base
            }, folder: network.home + "/runs", name: name)
    }

    /// Under systemd (JOURNAL_STREAM naming this very stderr): `<N>` priority prefixes, no time.
    @Test func underTheJournalLinesCarryPrioritiesAndNoTime() async throws {
        let network = try OutboxDevnet()
        try await Self.queueAnAdd(network)
        let flush = try await Self.flushLoop(network, journal: true, name: "journal")
        try await flush.until("two passes are logged") { flush.stderr.contains("<6>flush: pass 2: 1 applied") }
        let result = try await flush.stop()
        #expect(result.status == 0 && result.signal == nil, "SIGTERM stops the loop cleanly, as it stops watch")
        let lines = flush.stderrLines
        #expect(lines.contains("<6>flush: pass 1: 1 applied"), "\(lines)")
        #expect(
            lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") || $0.hasPrefix("<3>") },
            "no debug by default: \(lines)")
        #expect(!lines.contains { isTimestamped(String($0.dropFirst(3))) || $0.contains("Z info") })
        #expect(flush.stdout.hasPrefix("add d4d4d4…d4d4 (apns): "), "stdout keeps the report: \(flush.stdout)")
        #expect(!flush.stdout.contains("flush: pass"), "the log never goes to stdout")
    }

    /// Elsewhere (no JOURNAL_STREAM, or one naming another stream): a UTC time and a level on
    /// every line; -v adds the debug lines.
    @Test(arguments: [false, true])
    func otherwiseLinesAreTimestamped(verbose: Bool) async throws {
        let network = try OutboxDevnet()
        try await Self.queueAnAdd(network)
        let flush = try await Self.flushLoop(
            network, verbose ? ["-v"] : [], environment: ["JOURNAL_STREAM": "1:1"], journal: false,
            name: "plain-\(verbose)")
        try await flush.until("two passes are logged") { flush.stderr.contains("flush: pass 2: 1 applied") }
        let result = try await flush.stop(SIGINT)
        #expect(result.status == 0 && result.signal == nil, "SIGINT stops the loop cleanly, as it stops watch")
        let lines = flush.stderrLines
        #expect(
            lines.contains { isTimestamped($0, level: "info ") && $0.hasSuffix(" flush: pass 1: 1 applied") },
            "\(lines)")
        #expect(lines.allSatisfy { isTimestamped($0) }, "\(lines)")
        let debug = lines.filter { isTimestamped($0, level: "debug") }
        #expect(
            debug.contains { $0.contains(" flush: next pass at ") && $0.hasSuffix("(in 1 s)") } == verbose, "\(lines)")
        #expect(debug.isEmpty == !verbose)
        #expect(!lines.joined().contains(network.passphrase) && !lines.joined().contains(Self.token))
    }

    /// ADM_LOG=warning leaves the info lines out and keeps the warnings: an account without
    /// funds waits, and says so each pass.
    @Test func admLogWarningKeepsOnlyWarnings() async throws {
        let network = try OutboxDevnet(funded: false)
        try await Self.queueAnAdd(network)
        let flush = try await Self.flushLoop(
            network, environment: ["ADM_LOG": "warning"], journal: true, name: "warning")
        let waits = "<4>flush: add d4d4d4…d4d4 waits for funds: a signal costs 0.001 ADM, the balance is 0 ADM"
        try await flush.until("two passes are done") { flush.stderrLines.count { $0 == waits } >= 2 }
        _ = try await flush.stop()
        #expect(flush.stderrLines.allSatisfy { $0 == waits }, "\(flush.stderrLines)")
        #expect(flush.stdout.split(separator: "\n").count >= 2, "each pass still prints its report")
    }

    /// A stop in the middle of a pass ends the loop without reporting that pass: its requests
    /// were cancelled by the stop, not failed by the nodes.
    @Test func aStopInTheMiddleOfAPassReportsNoFailure() async throws {
        let network = try OutboxDevnet(funded: false)
        try await Self.queueAnAdd(network)
        for node in network.devnet.nodeURLs.indices { try network.devnet.add(Fault(.blackhole), toNode: node) }
        let flush = try await Self.flushLoop(network, journal: true, name: "stopped mid-pass", deadline: "60")
        try await flush.until("the pass asks the nodes") {
            ((try? network.devnet.requests(toNode: 0)) ?? []).contains { $0.path == "/api/node/status" }
        }
        let result = try await flush.stop(SIGINT)
        #expect(result.status == 0 && result.signal == nil)
        #expect(
            flush.stderrLines == ["<6>flush: stopped; what is still pending stays queued in the home"],
            "\(flush.stderrLines)")
    }

    /// Nodes that fail are a warning line of the log each pass, and nothing else goes to stderr.
    @Test func failingNodesAreAWarningOfTheLog() async throws {
        let network = try OutboxDevnet()
        try await Self.queueAnAdd(network)
        try network.faultEveryNode("refuse")
        let flush = try await Self.flushLoop(network, journal: true, name: "refused", deadline: "0.5")
        try await flush.until("two passes are logged") {
            flush.stderrLines.count { $0.hasPrefix("<4>flush: nodes: ") } >= 2
        }
        _ = try await flush.stop()
        let lines = flush.stderrLines
        #expect(lines.contains("<6>flush: pass 1: 1 pending"), "\(lines)")
        #expect(
            lines.allSatisfy {
                $0.hasPrefix("<6>flush: pass ") || $0.hasPrefix("<4>flush: ")
                    || $0 == "<6>flush: stopped; what is still pending stays queued in the home"
            }, "\(lines)")
        #expect(flush.stdout.hasPrefix("add d4d4d4…d4d4 (apns): pending"), "\(flush.stdout)")
    }

    @Test(arguments: [("adm-push", ["flush"]), ("adm-fetch", ["watch"])])
    func anUnknownADMLogIsExit64(_ tool: String, _ arguments: [String]) async throws {
        let result = try await run(
            tool, arguments + ["--home", "/nonexistent/never-created", "--node", "http://127.0.0.1:9"],
            environment: ["ADM_LOG": "loud", "ADM_PASSPHRASE": BIP39.randomMnemonic()])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr == "Error: ADM_LOG must be one of debug, info, warning, error, got 'loud'\n")
        #expect(result.stdout.isEmpty)
    }

    /// Through a backlog (more than a page) on a terminal: one progress line, drawn with `\r`
    /// and erased at the end. With stderr a file, no trace of it.
    @Test func aBacklogShowsProgressOnATerminalOnly() async throws {
        let network = try await FetchDevnet()
        for index in 0..<150 { _ = try await network.submit("backlog \(index)", from: network.friend, to: network.me) }
        // A block holds at most 25 transactions: forged until every message is in one. What
        // still waits in a pool is rightly shown from the pool as the first socket comes up,
        // never through the paged listing whose progress this test is about.
        let inBlocks = { network.devnet.confirmedTransactions.count { $0.recipientId == network.me.address } }
        for _ in 0..<100 where inBlocks() < 150 { network.devnet.mine() }
        try #require(inBlocks() == 150)
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase,
        ]
        func watch(home: String, terminal: FileHandle?) throws -> LoggingProcess {
            try LoggingProcess(
                "adm-fetch",
                [
                    "watch", "--json", "--from-height", "1", "--interval", "0.5", "--home",
                    network.outbox.home + "/" + home,
                ],
                environment: { _ in environment }, folder: network.outbox.home + "/runs", name: home,
                standardError: terminal)
        }
        @Sendable func shown(_ process: LoggingProcess) -> Int { process.stdout.split(separator: "\n").count }

        let terminal = try PseudoTerminal()
        let screen = Mutex("")
        // Read as it comes, so the child never waits on a full terminal.
        let drain = { @Sendable in
            while case let more = terminal.screen(), !more.isEmpty { screen.withLock { $0 += more } }
        }
        let onTerminal = try watch(home: "tty", terminal: terminal.replica)
        try await onTerminal.until("the backlog is shown", within: 120) {
            drain()
            return shown(onTerminal) >= 150
        }
        _ = try await onTerminal.stop()
        drain()
        let seen = screen.withLock { $0 }
        #expect(seen.contains("\rcatching up: 100 read, block "), "\(seen.debugDescription)")
        let drawn = try #require(seen.range(of: "\rcatching up: "))
        #expect(seen[drawn.upperBound...].contains("\r\u{1B}[K"), "erased once caught up")
        #expect(seen.contains("Watching "))

        let inFile = try watch(home: "file", terminal: nil)
        try await inFile.until("the backlog is shown", within: 120) { shown(inFile) >= 150 }
        _ = try await inFile.stop()
        #expect(inFile.stderr.contains("Watching "))
        #expect(
            !inFile.stderr.contains("catching up") && !inFile.stderr.contains("\r")
                && !inFile.stderr.contains("\u{1B}"), "\(inFile.stderr)")
    }

    /// unregister --all over a history of more than a page of the account's signals: progress
    /// while the chain is read, on a terminal only.
    @Test func unregisterAllOverALongHistoryShowsProgressOnATerminalOnly() async throws {
        let network = try await FetchDevnet()
        let service = network.devnet.ans
        let key = try ChatKey(secretKey: network.me.secretKey, partner: service.publicKey)
        for index in 0..<110 {
            let token = String(repeating: "0", count: 60) + String(1000 + index)
            let signal = try PushSignal(token: token, provider: .apns, action: .add)
            let result = try await network.client.submitChat(
                key.seal(signal.plaintext, type: .signal), to: service.address, signedBy: network.me)
            guard case .accepted = result.outcome else { throw WatchTestFailure("not accepted: \(result)") }
        }
        // Blocks hold a bounded number of transactions: forged until every signal is in one.
        for _ in 0..<100
        where network.devnet.confirmedTransactions.count(where: { $0.recipientId == service.address }) < 110 {
            network.devnet.mine()
        }

        let terminal = try PseudoTerminal()
        let common = [
            "--no-wait", "--service-address", service.address.description, "--service-public-key",
            service.publicKey.hex,
        ]
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase,
        ]
        let onTerminal = try await run(
            "adm-push", ["unregister", "--all", "--home", network.outbox.home + "/tty"] + common,
            environment: environment,
            standardError: terminal.replica, timeout: 60)
        #expect(onTerminal.status == 75)
        #expect(onTerminal.stdout.split(separator: "\n").count == 110, "a remove queued for each token")
        var seen = ""
        while case let more = terminal.screen(), !more.isEmpty { seen += more }
        #expect(
            seen.contains("\rreading this account's signals to the service: 100 read\u{1B}[K"),
            "\(seen.debugDescription)")
        #expect(seen.hasSuffix("\r\u{1B}[K"), "erased at the end")

        let inPipe = try await network.outbox.push(["unregister", "--all", "--no-wait"], home: "pipe")
        #expect(inPipe.status == 75)
        #expect(inPipe.stdout.split(separator: "\n").count == 110)
        #expect(inPipe.stderr.isEmpty, "\(inPipe.stderr.debugDescription)")
    }
}
