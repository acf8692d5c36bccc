import AdamantCore
import AdamantDevnet
import AdamantStore
import Foundation
import Testing

/// `Examples/notifier`, a package of its own on the libraries alone. `swift test` cannot build
/// it (SwiftPM holds `.build` while the tests run): `.ci/run` builds it first, into this
/// package's `.build`, where it compiles only its own file (the libraries' build commands are
/// the same in both packages, so each build reuses the other's), and these tests run it from
/// beside the other products. Where it is missing, or older than the libraries it links, they
/// are skipped, except in CI, where they fail.
enum NotifierExample {
    static let build = "swift build --package-path Examples/notifier --scratch-path .build"
    static let binary = Binaries.url("notifier").path

    /// Built, and since the libraries it links were.
    static var current: Bool {
        func modified(_ path: String) -> Date? {
            try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        }
        guard let built = modified(binary) else { return false }
        return ["AdamantCore", "AdamantNodes", "AdamantStore", "AdamantFetch"].allSatisfy { library in
            let folder = Binaries.folder.appendingPathComponent(library + ".build").path
            let objects = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return objects.filter { $0.hasSuffix(".o") }.allSatisfy {
                modified(folder + "/" + $0).map { $0 <= built } ?? true
            }
        }
    }

    static var runs: Bool { TraceTools.inCI || current }

    static func require() throws {
        try #require(current, "\(binary) is missing, or older than the libraries it links: build it with `\(build)`")
    }

    /// The notifier on `home`, following the devnet's `me`.
    static func start(_ network: FetchDevnet, home: String, name: String) throws -> BackgroundProcess {
        try BackgroundProcess(
            binary, ["--home", home] + network.devnet.nodeURLs.flatMap { ["--node", $0] },
            environment: ["ADM_PASSPHRASE": network.outbox.passphrase, "PATH": "/usr/bin:/bin"],
            folder: network.outbox.home + "/runs", name: name, timeout: 240)
    }

    /// The JSON objects of the whole lines printed so far.
    static func objects(_ process: BackgroundProcess) -> [[String: Any]] {
        process.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func ids(_ process: BackgroundProcess) -> [String] { objects(process).compactMap { $0["id"] as? String } }

    /// Whether it has set its SIGTERM handler, which it does once set up (Linux's /proc):
    /// before that a SIGTERM ends it as the signal's default does.
    static func catchesSIGTERM(_ process: BackgroundProcess) -> Bool {
        guard let pid = process.processIdentifier,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << (SIGTERM - 1)) != 0
    }
}

@Suite(
    "Examples/notifier", .timeLimit(.minutes(4)),
    .enabled(if: NotifierExample.runs, "not built since the libraries were: `\(NotifierExample.build)` builds it"))
struct NotifierExampleTests {
    /// A burst of messages through three runs on one home: the first killed with SIGKILL, the
    /// second stopped with SIGTERM (which the example turns into an immediate exit 0), each in
    /// the middle of the burst. Every message is printed, none twice, but for the one a stop
    /// caught being printed: the stopped run's last line, printed again first by the next.
    @Test func eachMessageIsPrintedOnceAcrossAKillAndAStop() async throws {
        try NotifierExample.require()
        let network = try await FetchDevnet()
        // Missing, with a parent missing too: the notifier makes it, only its owner's.
        let home = network.outbox.home + "/notifier/home"
        let count = 100
        let first = try NotifierExample.start(network, home: home, name: "notifier-1")
        // On a new home it starts at the current block: what is sent before that is never shown.
        try await first.until("it is watching") {
            FileManager.default.fileExists(atPath: home + "/" + NotificationLog.fileName)
        }
        var info = stat()
        #expect(stat(home, &info) == 0 && info.st_mode & 0o777 == 0o700)
        // It has begun once its cursor is kept.
        let deadline = ContinuousClock.now + .seconds(60)
        while try await NotificationLog(home: home).watchCursor(account: network.me.address, stream: .chats) == nil {
            guard ContinuousClock.now < deadline else { throw WatchTestFailure("it never began\n\(first.stderr)") }
            try await Task.sleep(for: .milliseconds(50))
        }

        let sender = Task { () -> [String] in
            var ids: [String] = []
            for index in 0..<count {
                ids.append(try await network.submit("note \(index)", from: network.friend, to: network.me).description)
            }
            return ids
        }
        try await first.until("a first part is printed", within: 120) { NotifierExample.ids(first).count >= 25 }
        let killed = try await first.stop(SIGKILL)
        #expect(killed.signal == SIGKILL)

        let second = try NotifierExample.start(network, home: home, name: "notifier-2")
        try await second.until("a second part is printed", within: 120) {
            Set(NotifierExample.ids(first) + NotifierExample.ids(second)).count >= 60
        }
        try await second.until("it is set up") { NotifierExample.catchesSIGTERM(second) }
        let stopped = try await second.stop(SIGTERM)
        #expect(stopped.status == 0 && stopped.signal == nil, "\(second.stderr)")

        let sent = try await sender.value
        let third = try NotifierExample.start(network, home: home, name: "notifier-3")
        let runs = [first, second, third]
        try await third.until("the rest is printed", within: 120) {
            Set(runs.flatMap(NotifierExample.ids)).count >= count
        }
        try await third.until("it is set up") { NotifierExample.catchesSIGTERM(third) }
        let last = try await third.stop(SIGTERM)
        #expect(last.status == 0 && last.stderr.isEmpty, "\(last.stderr)")

        let printed = runs.map(NotifierExample.ids)
        let all = printed.flatMap { $0 }
        print("notifier: \(printed.map { "\($0.count)" }.joined(separator: " + ")) = \(all.count) lines")
        #expect(Set(all) == Set(sent), "none lost, none foreign")
        // A stop repeats at most the line it caught: its run's last, printed again first by the next run.
        for (run, next) in zip(printed, printed.dropFirst()) {
            if let caught = run.last, next.contains(caught) { #expect(next.first == caught) }
        }
        let caught = Set(printed.dropLast().compactMap(\.last))
        let repeated = Dictionary(grouping: all, by: { $0 }).filter { $0.value.count > 1 }
        #expect(repeated.keys.allSatisfy(caught.contains) && repeated.values.allSatisfy { $0.count == 2 })

        // The lines say what each message was, from whom and to whom.
        let objects = runs.flatMap(NotifierExample.objects)
        let texts = Dictionary(
            objects.map { ($0["id"] as? String ?? "", $0["body"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(sent.enumerated().allSatisfy { texts[$1] == "note \($0)" })
        #expect(
            objects.allSatisfy {
                $0["kind"] as? String == "message" && $0["title"] as? String == network.friend.address.description
                    && $0["account"] as? String == network.me.address.description
            })
    }

    @Test(arguments: [
        [], ["--home"], ["--node", "http://127.0.0.1:9"], ["--home", "HOME"], ["--home", "HOME", "extra"],
        ["--home", "HOME", "--node", "ftp://127.0.0.1"],
    ])
    func badUsageIs64(_ arguments: [String]) async throws {
        try NotifierExample.require()
        let home = NSTemporaryDirectory() + "notifier-usage-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try await run(
            NotifierExample.binary, arguments.map { $0 == "HOME" ? home : $0 },
            environment: ["ADM_PASSPHRASE": BIP39.randomMnemonic()])
        #expect(result.status == 64 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("notifier: ") && result.stderr.split(separator: "\n").count == 1)
    }

    /// The passphrase comes only from the environment: without it, and with one that is not a
    /// passphrase, a usage error.
    @Test(arguments: [nil, "not a passphrase"])
    func noPassphraseIs64(_ passphrase: String?) async throws {
        try NotifierExample.require()
        let home = NSTemporaryDirectory() + "notifier-usage-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try await run(
            NotifierExample.binary, ["--home", home, "--node", "http://127.0.0.1:9"],
            environment: passphrase.map { ["ADM_PASSPHRASE": $0] } ?? [:])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(passphrase == nil ? "ADM_PASSPHRASE" : "passphrase"), "\(result.stderr)")
    }

    /// A home that others can enter is refused, and not changed.
    @Test func aHomeOthersCanEnterIs64() async throws {
        try NotifierExample.require()
        let home = NSTemporaryDirectory() + "notifier-open-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: home) }
        chmod(home, 0o755)
        let result = try await run(
            NotifierExample.binary, ["--home", home, "--node", "http://127.0.0.1:9"],
            environment: ["ADM_PASSPHRASE": BIP39.randomMnemonic()])
        #expect(result.status == 64 && result.stderr.contains("chmod 700"), "\(result.stderr)")
    }

    @Test func noUsableNodeIs69() async throws {
        try NotifierExample.require()
        let home = NSTemporaryDirectory() + "notifier-nodes-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try await run(
            NotifierExample.binary, ["--home", home, "--node", "http://127.0.0.1:9"],
            environment: ["ADM_PASSPHRASE": BIP39.randomMnemonic()])
        #expect(result.status == 69 && result.stdout.isEmpty, "\(result.stderr)")
    }
}
