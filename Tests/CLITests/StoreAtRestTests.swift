import AdamantCore
import Foundation
import Testing

/// Between commands the home's stores are whole in their main files, and a WAL that holds
/// commits SQLite could not read is reported instead of being dropped in silence.
@Suite("The store at rest", .timeLimit(.minutes(2)))
struct StoreAtRestTests {
    static let tokens = ["c1", "c2", "c3"].map { String(repeating: $0, count: 32) }

    /// Three commands, then a copy of `outbox.sqlite` alone (a backup that skips the WAL) holds
    /// all three intents: every command that wrote left the store checkpointed.
    @Test func aBackupOfTheMainFileAloneIsWhole() async throws {
        let network = try OutboxDevnet()
        try network.faultEveryNode("refuse")
        for token in Self.tokens {
            #expect(
                try await network.push(["register", "--token", token, "--provider", "apns", "--no-wait"]).status == 75)
        }
        let home = network.home + "/home"
        let backup = network.home + "/backup"
        try FileManager.default.createDirectory(
            atPath: backup, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: home + "/outbox.sqlite", toPath: backup + "/outbox.sqlite")
        let queue = try await network.push(["queue"], home: "backup")
        #expect(queue.status == 0, "\(queue.stderr)")
        #expect(queue.stdout.split(separator: "\n").count == 3, "\(queue.stdout)")
    }

    /// A process killed mid-command leaves its commits in the WAL; replaced by other bytes, the
    /// WAL is reported (exit 1, naming it and what to do) and left as it is, where SQLite would
    /// have dropped it and shown an empty outbox.
    @Test func aWALWhoseCommitsCannotBeReadIsReported() async throws {
        let network = try OutboxDevnet()
        let killed = try await network.push(
            ["register", "--token", Self.tokens[0], "--provider", "apns"],
            extra: ["ADM_PUSH_TEST_KILL_AT": "after-record"])
        #expect(killed.signal == SIGKILL)
        let wal = network.home + "/home/outbox.sqlite-wal"
        let size = try #require(SmallFile.size(atPath: wal))
        #expect(size > 0, "the killed process's commits are in the WAL")
        let garbage = Data((0..<size).map { _ in UInt8.random(in: 0...255) })
        try garbage.write(to: URL(fileURLWithPath: wal))

        let queue = try await network.push(["queue"])
        #expect(queue.status == 1, "\(queue.stdout)")
        let message = "Error: the outbox store \(wal) is damaged (its write-ahead log holds "
        #expect(queue.stderr.hasPrefix(message), "\(queue.stderr)")
        #expect(
            queue.stderr.hasSuffix(
                "pages of commits but is not a write-ahead log any more): move it and \(network.home)/home/outbox.sqlite-shm aside and run 'adm-push repair', which rebuilds it from the chain\n"
            ))
        #expect(try Data(contentsOf: URL(fileURLWithPath: wal)) == garbage, "left as it was")
    }

    /// A WAL with nothing left to give (the last command checkpointed) may hold anything: no
    /// false alarm, and nothing is lost.
    @Test func aWALWithNothingLeftInItIsNoAlarm() async throws {
        let network = try OutboxDevnet()
        try network.faultEveryNode("refuse")
        #expect(
            try await network.push(["register", "--token", Self.tokens[0], "--provider", "apns", "--no-wait"]).status
                == 75)
        let wal = network.home + "/home/outbox.sqlite-wal"
        try Data((0..<8_192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: wal))
        let queue = try await network.push(["queue"])
        #expect(queue.status == 0, "\(queue.stderr)")
        #expect(queue.stdout.contains("#1 add (apns): pending"), "\(queue.stdout)")
    }
}

/// The outbox's WAL lost between commands (a backup of `*.sqlite`, a cleanup): every intent
/// is in the main file, so the last one still reaches the chain.
@Suite("The outbox without its WAL", .timeLimit(.minutes(2)))
struct OutboxLostWALTests {
    @Test func theLastIntentReachesTheChainAfterTheWALIsLost() async throws {
        let network = try OutboxDevnet()
        let token = StoreAtRestTests.tokens[0]
        #expect(
            try await network.push(["register", "--token", token, "--provider", "apns", "--deadline", "20"]).status == 0
        )
        network.settle()
        #expect(network.registered == [token])
        try network.faultEveryNode("refuse")
        #expect(try await network.push(["unregister", "--token", token, "--no-wait"]).status == 75)
        let outbox = network.home + "/home/outbox.sqlite"
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: outbox + suffix) }
        try network.clearFaults()
        let flush = try await network.push(["flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        network.settle()
        #expect(network.registered.isEmpty, "the unregister still reached the service")
    }
}
