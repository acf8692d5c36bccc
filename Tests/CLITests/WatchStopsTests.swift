import AdamantCore
import AdamantDevnet
import AdamantNodes
import AdamantStore
import Foundation
import Testing

/// Where a watch must stop rather than go on silently: a start past the chain's tip, and
/// output that cannot be written. Either way nothing is kept as shown that was not.
@Suite("adm-fetch watch stops", .timeLimit(.minutes(4)))
struct WatchStopsTests {
    @Test func aStartPastTheTipIsRefusedNamingTheTip() async throws {
        let network = try await FetchDevnet()
        let tip = try await network.client.height()
        let result = try await network.fetch(["watch", "--from-height", "99999999999"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let named = try #require(
            result.stderr.firstMatch(of: /tip, block (\d+)/).flatMap { Int64($0.1) }, "\(result.stderr)")
        // Blocks keep coming on the devnet's timer: the tip named lies between the heights
        // read before and after, however long a loaded machine took in between.
        #expect(named >= tip && named <= network.devnet.height)
        let log = try NotificationLog(home: network.outbox.home + "/home")
        #expect(try await log.watchCursor(account: network.me.address, stream: .chats) == nil, "no cursor kept")
    }

    /// A cursor past the tip, as an older version kept after such a start: the watch starts
    /// at the tip, says so, and shows what comes.
    @Test func aKeptCursorPastTheTipStartsAtTheTip() async throws {
        let network = try await FetchDevnet()
        let log = try NotificationLog(home: network.outbox.home + "/home")
        for stream in [WatchStream.chats, .transfers] {
            try await log.setWatchCursor(
                WatchCursor(height: 99_999_999_999), account: network.me.address, stream: stream)
        }
        let watch = try await WatchProcess(network, name: "ahead")
        let sent = try #require(try await network.send("after the tip", from: network.friend, to: network.me).id)
            .description
        try await watch.until("it is printed") { watch.ids == [sent] }
        #expect(try await watch.stop().status == 0)
        #expect(watch.stderr.contains("ahead of every node"), "\(watch.stderr)")
        let tip = try await network.client.height()
        #expect(try #require(try await log.watchCursor(account: network.me.address, stream: .chats)).height <= tip)
    }

    /// Standard output full or its reader gone: the watch stops at the first notification with
    /// exit 74, and a restart shows every one of them.
    @Test(arguments: ["/dev/full", "a closed pipe"])
    func aBrokenStandardOutputStopsAtTheFirstNotification(_ output: String) async throws {
        let network = try await FetchDevnet()
        let broken: FileHandle
        if output == "a closed pipe" {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            broken = pipe.fileHandleForWriting
        } else {
            broken = try #require(FileHandle(forWritingAtPath: output))
        }
        let watch = try await WatchProcess(network, name: "broken", standardOutput: broken)
        try broken.close()
        var sent: [String] = []
        for text in ["one", "two", "three"] {
            sent.append(try #require(try await network.send(text, from: network.friend, to: network.me).id).description)
        }
        let result = try await watch.ended()
        #expect(result.status == 74 && !result.timedOut, "\(watch.stderr)")
        // Whichever came first: a socket can announce a later one before the pool read that
        // brings the first.
        #expect(sent.contains { watch.stderr.contains("\($0) could not be shown") }, "\(watch.stderr)")

        let again = try await WatchProcess(network, name: "again")
        try await again.until("all three are printed") { again.ids.count >= 3 }
        #expect(try await again.stop().status == 0)
        #expect(again.ids == sent)
    }

    /// An empty --open or --kinds is refused at once, as the config file's empty "open" and
    /// "kinds" are, and nothing is written to the home.
    @Test(arguments: [
        (["--open="], "Error: --open needs a command"),
        (["--notify", "--open", " "], "Error: --open needs a command"),
        (["--kinds="], "Error: --kinds takes a comma-separated list of messages, transfers and reactions, got ''"),
    ])
    func anEmptyOpenOrKindsIsRefused(_ arguments: [String], _ message: String) async throws {
        let network = try await FetchDevnet()
        let result = try await network.fetch(["watch"] + arguments)
        #expect(result.status == 64 && result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: network.outbox.home + "/home/" + NotificationLog.fileName))
    }

    /// Each signal that stops a watch stops it cleanly, saying which: SIGHUP too (its terminal
    /// closed), and what came before is kept.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aStopSignalEndsTheWatchCleanlySayingWhich(_ signal: Int32) async throws {
        let network = try await FetchDevnet()
        let watch = try await WatchProcess(network, name: "signalled")
        let sent = try #require(try await network.send("before the stop", from: network.friend, to: network.me).id)
            .description
        try await watch.until("it is shown") { watch.ids == [sent] }
        let result = try await watch.stop(signal)
        #expect(result.status == 0 && result.signal == nil, "\(watch.stderr)")
        let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][signal] ?? ""
        #expect(watch.stderr.contains("watch: stopped by \(name)"), "\(watch.stderr)")
    }

    /// A live watch, its sockets' long polls out and its timers set, ends within a second of
    /// SIGTERM: nothing it started runs on to a timeout.
    @Test func aLiveWatchEndsWithinASecondOfSIGTERM() async throws {
        let network = try await FetchDevnet()
        let watch = try await WatchProcess(network, name: "live")
        try await watch.until("both sockets are live") {
            watch.stderr.components(separatedBy: "watch: live on").count == 3
        }
        let signalled = ContinuousClock.now
        let result = try await watch.stop(SIGTERM)
        let took = signalled.duration(to: result.exitedAt)
        #expect(result.status == 0, "\(watch.stderr)")
        #expect(took < .seconds(1), "ended \(took) after SIGTERM")
    }

    /// Standard output a FIFO whose reader stopped reading: SIGTERM still ends the watch at
    /// once, with exit 0 and a line saying why, and what was not written is shown at the next
    /// start.
    @Test func aStopIsNotHeldUpByAReaderThatStoppedReading() async throws {
        let network = try await FetchDevnet()
        let fifo = network.outbox.home + "/stalled"
        try FileManager.default.createDirectory(atPath: network.outbox.home, withIntermediateDirectories: true)
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)  // held open, never read while the watch runs
        #expect(reader >= 0)
        defer { close(reader) }
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        let watch = try await WatchProcess(network, name: "stalled", standardOutput: writer)
        try writer.close()
        // Ten lines of some 18 KB: the pipe's 64 KiB take three or four, the rest wait.
        var sent: [String] = []
        for index in 0..<10 {
            let text = "\(index) " + String(repeating: "x", count: 9_000)
            sent.append(try #require(try await network.send(text, from: network.friend, to: network.me).id).description)
        }
        try await watch.until("the pipe is nearly full") { Self.queuedBytes(reader) >= 40_000 }
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await watch.stop(SIGTERM)
        let took = started.duration(to: clock.now)
        #expect(took < .seconds(5), "stopped in \(took)")
        #expect(result.status == 0 && result.signal == nil, "\(watch.stderr)")
        #expect(
            watch.stderr.contains("watch: stopped while standard output took nothing more before the stop"),
            "\(watch.stderr)")
        #expect(watch.stderr.contains("are shown at the next start"))

        var written = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = read(reader, &buffer, buffer.count), count > 0 {
            written.append(contentsOf: buffer[0..<count])
        }
        let whole = String(decoding: written, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        let all = Set(sent)
        let again = try await WatchProcess(network, name: "again")
        try await again.until("the rest is shown") { Set(whole + again.ids).isSuperset(of: all) }
        #expect(try await again.stop().status == 0)
        #expect(
            !again.ids.isEmpty && Set(whole).isDisjoint(with: again.ids), "written once: \(whole) then \(again.ids)")
    }

    /// Bytes waiting in the pipe behind `descriptor`.
    static func queuedBytes(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }

    /// A second watch of the account on the same home would show every message twice: it
    /// exits 75 naming the first, which goes on alone; once the first stops, one can start.
    @Test func aSecondWatchOnOneHomeIsRefusedNamingTheFirst() async throws {
        let network = try await FetchDevnet()
        let first = try await WatchProcess(network, name: "first")
        let second = try await network.fetch(["watch"])
        #expect(second.status == 75, "\(second.stderr)")
        let pid = try #require(first.processID)
        #expect(
            second.stderr.contains("another watch of \(network.me.address) runs on this home (process \(pid) on "),
            "\(second.stderr)")
        let sent = try #require(try await network.send("once", from: network.friend, to: network.me).id).description
        try await first.until("the first shows it") { first.ids == [sent] }
        #expect(try await first.stop().status == 0)

        let third = try await WatchProcess(network, name: "third")
        #expect(try await third.stop().status == 0, "\(third.stderr)")
    }
}
