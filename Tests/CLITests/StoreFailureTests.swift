import AdamantCore
import Foundation
import Testing

/// A file of the home that cannot be used as it is: one line naming the file and what to do,
/// exit 74, and nothing else of the home touched.
@Suite("Store failures", .timeLimit(.minutes(2)))
struct StoreFailureTests {
    static let token = String(repeating: "c3", count: 32)

    @Test(arguments: [
        ("outbox.sqlite", ["queue"], "the outbox store"),
        ("outbox.sqlite-wal", ["queue"], "the outbox store"),
        ("outbox.sqlite", ["register", "--token", token, "--provider", "apns", "--no-wait"], "the outbox store"),
    ])
    func aStoreFileThatIsAFIFOIsNamed(_ file: String, _ arguments: [String], _ name: String) async throws {
        let network = try OutboxDevnet()
        #expect(try await network.push(["queue"]).status == 0)  // the home and its files exist
        let path = network.home + "/home/" + file
        try? FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        let result = try await network.push(arguments)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: \(name) \(path) is not a regular file but a FIFO: remove it, and a new one is made\n")
    }

    /// The notification log is called by its name, by watch (which stops) and fetch (which
    /// goes on without it).
    @Test func aNotificationLogThatIsAFIFOIsCalledTheNotificationLog() async throws {
        let network = try await FetchDevnet()
        let home = network.outbox.home + "/home"
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(mkfifo(home + "/notifications.sqlite", 0o600) == 0)
        let expected =
            "the notification log \(home)/notifications.sqlite is not a regular file but a FIFO: remove it, and a new one is made"
        let watch = try await network.fetch(["watch"])
        #expect(watch.status == 74)
        #expect(watch.stderr.contains("Error: " + expected + "\n"), "\(watch.stderr)")
        let fetch = try await network.fetch(["1234567", "--deadline", "1"])
        #expect(fetch.stderr.contains("warning: " + expected + "; duplicates are not detected\n"), "\(fetch.stderr)")
        #expect(!(watch.stderr + fetch.stderr).contains("outbox"))
    }

    /// A write lock another process keeps past the wait: exit 74 naming the process, and the
    /// intent that could not be stored is not half there.
    @Test func aLockHeldTooLongNamesItsHolder() async throws {
        let network = try OutboxDevnet()
        #expect(try await network.push(["queue"]).status == 0)
        let holder = try await LockHolder(network.home + "/home/outbox.sqlite")
        let result = try await network.push(["register", "--token", Self.token, "--provider", "apns", "--no-wait"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: the outbox store \(network.home)/home/outbox.sqlite stayed locked past the wait; it is open in process \(holder.processIdentifier) (python3): let that finish, then run again\n"
        )
        await holder.stop()
        let queue = try await network.push(["queue"])
        #expect(queue.stdout == "the outbox is empty for this account\n")
    }
}

/// A python3 process, in the background, that holds an SQLite database's write lock until
/// its flag file is removed.
struct LockHolder {
    let processIdentifier: Int32
    private let flag: String

    init(_ path: String) async throws {
        flag = path + ".holding"
        let ready = path + ".held"
        _ = FileManager.default.createFile(atPath: flag, contents: nil)
        let script = """
            import os, sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('BEGIN IMMEDIATE')
            open(sys.argv[3], 'w').write('held')
            while os.path.exists(sys.argv[2]): time.sleep(0.05)
            """
        let started = try await run(
            "/bin/sh",
            [
                "-c", "/usr/bin/python3 -c \"$0\" \"$1\" \"$2\" \"$3\" </dev/null >/dev/null 2>&1 & echo $!", script,
                path, flag, ready,
            ])
        processIdentifier = try #require(Int32(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? String(contentsOfFile: ready, encoding: .utf8)) != "held" {
            guard ContinuousClock.now < deadline else { throw CocoaError(.fileReadUnknown) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Lets go of the lock and waits for the process to end.
    func stop() async {
        try? FileManager.default.removeItem(atPath: flag)
        let deadline = ContinuousClock.now + .seconds(20)
        while kill(processIdentifier, 0) == 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
