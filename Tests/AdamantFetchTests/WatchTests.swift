import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantStore
import Foundation
import Synchronization
import Testing

@testable import AdamantFetch

/// What a test's handler throws for the notification it refuses.
struct Refused: Error, Equatable {}

/// A watcher of `network.me` in a fresh home, run as a task and stopped by cancelling it.
final class WatchRun: Sendable {
    let network: FetchNetwork
    let home: String
    let log: NotificationLog
    private let delivered = Mutex<[WatchNotification]>([])
    /// What the watch logged.
    let events = RecordingLog()
    private let started = Mutex<Int64?>(nil)
    private let task = Mutex<Task<Result<Void, WatchError>, Never>?>(nil)

    init(_ network: FetchNetwork, home: String? = nil) throws {
        self.network = network
        self.home =
            home ?? FileManager.default.temporaryDirectory.appendingPathComponent("adm-watch-\(UUID().uuidString)").path
        log = try NotificationLog(home: self.home)
    }

    var notifications: [WatchNotification] { delivered.withLock { $0 } }
    var results: [FetchResult] { notifications.map(\.result) }
    var startHeight: Int64? { started.withLock { $0 } }

    /// Starts watching, polling only unless `live`; the handler refuses `refusing`, as one
    /// whose output broke would.
    func start(
        from start: WatchStart = .resume, refusing: TransactionID? = nil, live: Bool = false,
        interval: Duration = .milliseconds(100),
        checkpointInterval: Duration? = nil
    ) async throws {
        var configuration = Watcher.Configuration()
        if let checkpointInterval { configuration.checkpointInterval = checkpointInterval }
        configuration.interval = interval
        configuration.liveInterval = interval
        configuration.live = live
        let watcher = Watcher(fetcher: network.fetcher(), log: log, configuration: configuration, events: events)
        let task = Task { [self] () -> Result<Void, WatchError> in
            do throws(WatchError) {
                try await watcher.run(from: start) { height in
                    self.started.withLock { $0 = height }
                } onNotification: { notification throws(HandOverFailure) in
                    let result = notification.result
                    if result.id == refusing { throw .handler(Refused()) }
                    self.delivered.withLock { $0.append(notification) }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        self.task.withLock { $0 = task }
        try await until("the watch started") { self.startHeight != nil }
    }

    /// Waits for the watch to end by itself.
    func ended() async -> Result<Void, WatchError>? { await task.withLock({ $0 })?.value }

    @discardableResult
    func stop() async -> Result<Void, WatchError>? {
        guard let task = task.withLock({ $0 }) else { return nil }
        task.cancel()
        return await task.value
    }

    /// Polls `condition` until it holds; generous, for a machine with a busy core.
    func until(_ what: String, within seconds: Double = 30, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out waiting until \(what); got \(results.map(\.id))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: home) }
}

/// Keeps every line logged.
final class RecordingLog: LogSink {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let line = message()
        lines.withLock { $0.append(line) }
    }
}

extension FetchNetwork {
    func transfer(_ amount: Int64, from sender: KeyPair, to recipient: KeyPair) async throws -> TransactionID {
        let result = try await NodeClient(pool: pool).submitTransfer(
            amount: amount, to: recipient.address, signedBy: sender)
        guard case .accepted = result.outcome else { throw TestFailure("not accepted: \(result)") }
        return result.transactionID
    }
}

@Suite("Watch, live", .timeLimit(.minutes(2)))
struct WatchTests {
    /// Messages and a type 0 transfer to this account, each once, in block order; what this
    /// account sent and signals are not shown. On 0.10 nodes transfers come with the chats,
    /// on 0.9 from /api/transactions.
    @Test(arguments: [NodeVersion.current, NodeVersion(0, 9, 0)])
    func incomingMessagesAndTransfersAreNotifiedOnceEachInBlockOrder(_ version: NodeVersion) async throws {
        let network = try await FetchNetwork { $0.nodeVersion = version }
        let watch = try WatchRun(network)
        try await watch.start()
        let first = try await network.send("one", from: network.friend, to: network.me).computedID()
        let transfer = try await network.transfer(12_345, from: network.friend, to: network.me)
        try await network.send("mine, not shown", from: network.me, to: network.friend)
        try await network.send("{\"token\":\"x\"}", type: .signal, from: network.friend, to: network.me)
        network.devnet.mine()
        let last = try await network.send("two", from: network.friend, to: network.me).computedID()
        // On 0.9 the transfers are a listing of their own, read after the chats in each poll: one
        // poll can show `last` before it reads the transfer.
        try await watch.until("the last one and the transfer are shown") {
            let shown = watch.results.map(\.id)
            return shown.contains(last) && shown.contains(transfer)
        }
        // What was not shown came before `last` in block order: it was passed over by now.
        await watch.stop()

        let results = watch.results
        #expect(Set(results.map(\.id)) == [first, transfer, last], "\(results.map { ($0.id, $0.text ?? "-") })")
        #expect(results.count == 3, "each once")
        // In block order within a listing; on 0.9 the transfer's listing is another.
        let inOneListing = results.filter { version >= .v0_10 || $0.id != transfer }
        let heights = inOneListing.compactMap { $0.transaction?.height }
        #expect(heights == heights.sorted() && heights.count == inOneListing.count && results.count == 3)
        #expect(results.allSatisfy { $0.failure == nil && $0.thread == network.friend.address })
        #expect(results.first { $0.id == first }?.text == "one")
        #expect(results.first { $0.id == transfer }?.text == nil)
        #expect(results.first { $0.id == transfer }?.transaction?.amount == 12_345)
    }

    /// On its schedule a running watch leaves its log whole in the main file: a copy of
    /// `notifications.sqlite` alone, as a backup that skips the WAL makes, holds the cursor and
    /// what was shown, and the lease keeps the cursor's block beside the log.
    @Test func aRunningWatchMergesItsLogOnItsSchedule() async throws {
        let network = try await FetchNetwork()
        let watch = try WatchRun(network)
        try await watch.start(checkpointInterval: .zero)
        let id = try await network.send("kept", from: network.friend, to: network.me).computedID()
        try await watch.until("it is shown") { watch.results.map(\.id) == [id] }
        let account = network.me.address
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            // The lease first: it is written after the merge it speaks of, so a copy taken after
            // it holds at least as much.
            let lease = (try? String(contentsOfFile: watch.home + "/watch-\(account).lock", encoding: .utf8)) ?? ""
            let kept = lease.split(separator: "\n").dropFirst().first.flatMap {
                $0.hasPrefix("block ") ? Int64($0.dropFirst(6)) : nil
            }
            let backup = FileManager.default.temporaryDirectory.appendingPathComponent(
                "adm-backup-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: backup) }
            try FileManager.default.createDirectory(
                atPath: backup, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(
                atPath: watch.home + "/" + NotificationLog.fileName, toPath: backup + "/" + NotificationLog.fileName)
            let copy = try NotificationLog(home: backup)
            let cursor = try await copy.watchCursor(account: account, stream: .chats)
            let shown = try await copy.shown(pooled: [id], account: account, fromHeight: 0)
            if let kept {
                #expect(
                    kept <= cursor?.height ?? -1,
                    "the lease is never ahead of the main file: kept \(kept), \(String(describing: cursor))")
            }
            if cursor != nil, shown == [id], kept != nil { break }
            guard ContinuousClock.now < deadline else {
                Issue.record(
                    "the main file alone: cursor \(String(describing: cursor)), shown \(shown); the lease: \(lease)")
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        await watch.stop()
    }

    /// Two of three nodes alter what they serve: only verified rows are shown, each once.
    @Test func aTamperingNodesRowsAreNotShown() async throws {
        let network = try await FetchNetwork(nodes: 3)
        for index in 0..<2 { try network.devnet.add(Fault(parsing: "tamper"), toNode: index) }
        let watch = try WatchRun(network)
        try await watch.start()
        var sent: [TransactionID] = []
        for text in ["a", "b", "c"] {
            sent.append(try await network.send(text, from: network.friend, to: network.me).computedID())
        }
        network.devnet.mine()
        try await watch.until("all three are shown") { watch.results.count >= 3 }
        await watch.stop()
        #expect(watch.results.map(\.id) == sent)
        #expect(watch.results.map(\.text) == ["a", "b", "c"])
        #expect(watch.results.allSatisfy { (try? $0.transaction?.verify()) != nil })
    }

    /// Every node tampers: nothing is shown, and the cursor stays where it was.
    @Test func nothingIsShownWhenNoAnswerVerifies() async throws {
        let network = try await FetchNetwork()
        let watch = try WatchRun(network)
        try await watch.start()
        let before = try await watch.log.watchCursor(account: network.me.address, stream: .chats)
        for index in 0..<2 { try network.devnet.add(Fault(parsing: "tamper"), toNode: index) }
        let id = try network.confirmed(try await network.send("hidden", from: network.friend, to: network.me))
        let requests: @Sendable () -> Int = {
            (try? network.devnet.requests(toNode: 0).count(where: { $0.path == "/api/chats/get" })) ?? 0
        }
        let asked = requests()
        try await watch.until("the nodes were polled again") { requests() >= asked + 3 }
        await watch.stop()
        #expect(watch.results.isEmpty, "\(id) was shown from a tampered answer")
        #expect(try await watch.log.watchCursor(account: network.me.address, stream: .chats) == before)
    }

    /// Stopped and started again: what came meanwhile is shown, nothing twice.
    @Test func aRestartResumesAtTheCursor() async throws {
        let network = try await FetchNetwork()
        let first = try WatchRun(network)
        try await first.start()
        let early = try network.confirmed(try await network.send("early", from: network.friend, to: network.me))
        try await first.until("the first is shown") { first.results.count == 1 }
        await first.stop()

        let meanwhile = try network.confirmed(try await network.send("meanwhile", from: network.friend, to: network.me))
        network.devnet.mine()
        let second = try WatchRun(network, home: first.home)
        try await second.start()
        let late = try network.confirmed(try await network.send("late", from: network.friend, to: network.me))
        try await second.until("the late one is shown") { second.results.contains { $0.id == late } }
        await second.stop()
        #expect(first.results.map(\.id) == [early])
        #expect(second.results.map(\.id) == [meanwhile, late])
    }

    /// A notification the handler cannot show stops the watch, and it and the rest of its page
    /// are shown by the next start.
    @Test func oneThatCannotBeHandedOverIsShownByTheNextStart() async throws {
        let network = try await FetchNetwork()
        let start = try await NodeClient(pool: network.pool).height() + 1
        var sent: [TransactionID] = []
        for text in ["one", "two", "three"] {
            sent.append(try network.confirmed(try await network.send(text, from: network.friend, to: network.me)))
        }
        network.devnet.mine()
        let first = try WatchRun(network)
        try await first.start(from: .height(start), refusing: sent[1])
        let ended = await first.ended()
        guard case .failure(.notHandedOver(let id, .handler(let refusal))) = ended else {
            throw TestFailure("ended with \(String(describing: ended))")
        }
        #expect(id == sent[1] && refusal is Refused)
        #expect(first.results.map(\.id) == [sent[0]])

        let second = try WatchRun(network, home: first.home)
        try await second.start()
        try await second.until("the rest is shown") { second.results.count >= 2 }
        await second.stop()
        #expect(second.results.map(\.id) == Array(sent[1...]))
    }

    /// A start past the chain's tip is refused with the tip; a kept cursor past it (as an
    /// older version could keep) starts at the tip instead of silencing the watch.
    @Test func noCursorIsKeptPastTheChainsTip() async throws {
        let network = try await FetchNetwork()
        let refused = try WatchRun(network)
        let tip = try await NodeClient(pool: network.pool).height()
        let lease = try refused.log.leaseWatch(account: network.me.address)
        do {
            try await Watcher(fetcher: network.fetcher(), log: refused.log).begin(.height(99_999_999_999), lease: lease)
            Issue.record("a start past the tip was taken")
        } catch {
            guard case .aheadOfChain(99_999_999_999, let named) = error else { throw error }
            // Blocks keep coming on the devnet's timer: the tip named lies between the heights
            // read before and after, however long a loaded machine took in between.
            #expect(named >= tip && named <= network.devnet.height)
        }
        #expect(try await refused.log.watchCursor(account: network.me.address, stream: .chats) == nil, "nothing kept")

        let watch = try WatchRun(network)
        for stream in [WatchStream.chats, .transfers] {
            try await watch.log.setWatchCursor(
                WatchCursor(height: 99_999_999_999), account: network.me.address, stream: stream)
        }
        try await watch.start()
        #expect(try #require(watch.startHeight) <= network.devnet.height)
        let new = try network.confirmed(
            try await network.send("after a cursor past the tip", from: network.friend, to: network.me))
        try await watch.until("the new one is shown") { watch.results.contains { $0.id == new } }
        await watch.stop()
        #expect(
            try #require(try await watch.log.watchCursor(account: network.me.address, stream: .chats)).height
                <= network.devnet.height)
    }

    /// The first watch of an account starts at the current block: history is not replayed.
    @Test func theFirstWatchStartsAtTheCurrentBlock() async throws {
        let network = try await FetchNetwork()
        _ = try network.confirmed(try await network.send("old", from: network.friend, to: network.me))
        network.devnet.mine()
        let watch = try WatchRun(network)
        try await watch.start()
        let new = try network.confirmed(try await network.send("new", from: network.friend, to: network.me))
        try await watch.until("the new one is shown") { watch.results.contains { $0.id == new } }
        await watch.stop()
        #expect(watch.results.map(\.id) == [new])
    }
}
