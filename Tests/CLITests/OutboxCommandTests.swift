import AdamantCore
import AdamantDevnet
import Foundation
import Synchronization
import Testing

/// `adm-push register` and friends as processes against an in-process devnet.
final class OutboxDevnet: Sendable {
    let devnet: Devnet
    let home: String
    let account: KeyPair
    let passphrase: String

    /// Which service `push` registers with.
    let service: ServiceKind

    /// `ansPoll` nil: the services poll only when a test says so (`nsPoll` likewise).
    init(
        mode: ANSMode = .csharp, funded: Bool = true, ansPoll: Duration? = nil, nodes: Int = 2,
        blockTime: Duration = .milliseconds(150), service: ServiceKind = .ans, nsPoll: Duration? = nil
    ) throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = nodes
        configuration.blockTime = blockTime
        configuration.ansPollInterval = ansPoll ?? .seconds(600)
        configuration.nsPollInterval = nsPoll ?? .seconds(600)
        configuration.ansMode = mode
        self.service = service
        devnet = try Devnet(configuration)
        passphrase = BIP39.randomMnemonic()
        account = KeyPair(passphrase: try Passphrase(validating: passphrase))
        if funded { _ = try devnet.fund(account.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM)) }
        home = FileManager.default.temporaryDirectory.appendingPathComponent("adm-push-cli-\(UUID().uuidString)").path
    }

    deinit {
        devnet.stop()
        try? FileManager.default.removeItem(atPath: home)
    }

    /// Runs `adm-push` with this devnet's nodes and service, the account's passphrase, and a
    /// home under the test's folder.
    func push(
        _ arguments: [String], home name: String = "home", passphrase: String? = nil, extra: [String: String] = [:]
    ) async throws -> RunResult {
        let identity = service == .ans ? devnet.ans : devnet.ns
        let common = [
            "--home", home + "/" + name, "--service", service.rawValue, "--service-address",
            identity.address.description, "--service-public-key", identity.publicKey.hex,
        ]
        let environment = [
            "ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": passphrase ?? self.passphrase,
        ].merging(extra) { $1 }
        return try await run("adm-push", arguments + common, environment: environment, timeout: 60)
    }

    func faultEveryNode(_ fault: String) throws {
        for index in devnet.nodeURLs.indices { try devnet.add(Fault(parsing: fault), toNode: index) }
    }

    func clearFaults() throws {
        for index in devnet.nodeURLs.indices { try devnet.clearFaults(ofNode: index) }
    }

    func settle(blocks: Int = 4) {
        for _ in 0..<blocks {
            _ = devnet.mine()
            devnet.pollANS()
            devnet.pollNS()
        }
    }

    var registered: [String] { devnet.ansRegistrations.filter { $0.address == account.address }.map(\.token) }
    /// adamant-ns's devices of the account.
    var devices: [NSDevice] { devnet.nsDevices.filter { $0.address == account.address } }
}

@Suite("adm-push outbox commands", .timeLimit(.minutes(2)))
struct OutboxCommandTests {
    static let token = String(repeating: "c3", count: 32)

    /// The seed's race with real processes: unregister while no node answers (75), register the
    /// same token again, flush. The registry keeps the token and no remove ever landed.
    @Test(arguments: ANSMode.allCases)
    func theSeedsRaceEndsRegistered(_ mode: ANSMode) async throws {
        let network = try OutboxDevnet(mode: mode)
        let first = try await network.push(["register", "--token", Self.token, "--provider", "apns"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("add c3c3c3…c3c3 (apns): applied (block "), "\(first.stdout)")
        network.settle()
        #expect(network.registered == [Self.token])

        try network.faultEveryNode("refuse")
        let offline = try await network.push(["unregister", "--token", Self.token, "--deadline", "1"])
        #expect(offline.status == 75, "\(offline.stderr)")
        #expect(
            offline.stderr.contains(
                "Queued: kept in the outbox; 'adm-push flush' (or the next register or unregister) finishes it."))
        try network.clearFaults()

        let again = try await network.push(["register", "--token", Self.token, "--provider", "apns"])
        #expect(again.status == 0, "\(again.stderr)")
        let flush = try await network.push(["flush", "--json"])
        #expect(flush.status == 0, "\(flush.stderr)")
        network.settle()
        #expect(network.registered == [Self.token])
        let queue = try await network.push(["queue", "--json"])
        struct Queue: Decodable {
            struct Intent: Decodable {
                let action: String
                let state: String
                let attempts: [Attempt]
            }
            struct Attempt: Decodable { let id: String }
            let intents: [Intent]
        }
        let intents = try JSONDecoder().decode(Queue.self, from: Data(queue.stdout.utf8)).intents
        #expect(intents.map(\.action) == ["add", "remove", "add"])
        #expect(intents[1].state == "superseded" && intents[1].attempts.isEmpty, "the stale remove was never sent")
        #expect(intents.flatMap(\.attempts).count == 1, "one signal in all")
    }

    /// Ctrl-C (or SIGTERM) while register waits for the chain: the intent is stored already, so
    /// the wait ends with the report, exit 75 and a word that it stays queued; a flush later
    /// applies it.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalWhileWaitingSaysTheIntentStaysQueued(_ signal: Int32) async throws {
        let network = try OutboxDevnet()
        try network.faultEveryNode("refuse")
        let pid = Mutex<pid_t?>(nil)
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.passphrase,
        ]
        let arguments = [
            "register", "--token", Self.token, "--provider", "apns", "--deadline", "50", "--home",
            network.home + "/home",
            "--service-address", network.devnet.ans.address.description, "--service-public-key",
            network.devnet.ans.publicKey.hex,
        ]
        let register = Task {
            try await run("adm-push", arguments, environment: environment, timeout: 60) { child in
                pid.withLock { $0 = child.processIdentifier }
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        var queue = try await network.push(["queue"])
        while !queue.stdout.contains("c3c3c3…c3c3 #1 add") {
            guard ContinuousClock.now < deadline else {
                throw WatchTestFailure("the intent never showed in the queue: \(queue.stdout)\(queue.stderr)")
            }
            queue = try await network.push(["queue"])
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(try #require(pid.withLock { $0 }), signal)
        let result = try await register.value
        #expect(result.status == 75 && result.signal == nil && !result.timedOut, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("add c3c3c3…c3c3 (apns): pending"), "\(result.stdout)")
        #expect(
            result.stderr.contains("Interrupted: the wait ended; what was asked for is not lost."), "\(result.stderr)")
        #expect(result.stderr.contains("'adm-push flush'"), "\(result.stderr)")

        try network.clearFaults()
        let flush = try await network.push(["flush"])
        #expect(
            flush.status == 0 && flush.stdout.hasPrefix("add c3c3c3…c3c3 (apns): applied"),
            "\(flush.stdout)\(flush.stderr)")
    }

    @Test func noFundsIsExitOneNamingTheFeeAndAFlushSendsItOnceFunded() async throws {
        let network = try OutboxDevnet(funded: false)
        let poor = try await network.push(["register", "--token", Self.token, "--provider", "apns", "--deadline", "5"])
        #expect(poor.status == 1)
        #expect(
            poor.stderr.contains("Error: not enough ADM: a signal costs 0.001 ADM and the balance is 0 ADM."),
            "\(poor.stderr)")
        #expect(poor.stdout.contains("waiting for funds"))
        _ = try network.devnet.fund(network.account.address, amount: ADMAmount(units: 100_000))
        let flush = try await network.push(["flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        #expect(flush.stdout.contains("applied (block"))
    }

    @Test func unregisterAllWithAFreshHomeRemovesWhatTheChainShows() async throws {
        let network = try OutboxDevnet()
        for token in [Self.token, String(repeating: "d4", count: 32)] {
            let result = try await network.push(
                ["register", "--token", token, "--provider", "apns", "--no-wait"], home: "old")
            #expect(result.status == 75)
        }
        #expect(try await network.push(["flush"], home: "old").status == 0)
        network.settle()
        #expect(network.registered.count == 2)
        let all = try await network.push(["unregister", "--all", "--json"], home: "fresh")
        #expect(all.status == 0, "\(all.stderr)")
        network.settle()
        #expect(network.registered.isEmpty)
        let none = try await network.push(["unregister", "--all"], home: "fresh")
        #expect(none.status == 0 && none.stdout.contains("nothing to unregister"))
    }

    /// `unregister --all` from another home is the user's newer word: the home that registered
    /// the tokens says they were unregistered elsewhere and sends nothing, however often it
    /// flushes; an explicit register there starts over.
    @Test func anOldHomeDoesNotUndoUnregisterAllMadeElsewhere() async throws {
        let network = try OutboxDevnet()
        let tokens = [Self.token, String(repeating: "d4", count: 32)]
        for token in tokens {
            #expect(
                try await network.push(["register", "--token", token, "--provider", "apns", "--no-wait"], home: "old")
                    .status == 75)
        }
        #expect(try await network.push(["flush"], home: "old").status == 0)
        network.settle()
        #expect(try await network.push(["unregister", "--all"], home: "fresh").status == 0)
        network.settle()
        #expect(network.registered.isEmpty)

        let status = try await network.push(["status"], home: "old")
        #expect(status.status == 0, "\(status.stderr)")
        let lines = status.stdout.split(separator: "\n")
        #expect(
            lines.count == 2
                && lines.allSatisfy {
                    $0.contains(": unregistered by another client at block ") && $0.hasPrefix("add ")
                }, "\(status.stdout)")
        for _ in 0..<2 {
            let flush = try await network.push(["flush"], home: "old")
            #expect(flush.status == 0, "\(flush.stderr)")
            network.settle()
        }
        #expect(network.registered.isEmpty, "the old home added the tokens again")
        struct Queue: Decodable {
            struct Intent: Decodable { let attempts: [Attempt] }
            struct Attempt: Decodable { let id: String }
            let intents: [Intent]
        }
        let queue = try JSONDecoder().decode(
            Queue.self, from: Data(try await network.push(["queue", "--json"], home: "old").stdout.utf8))
        #expect(queue.intents.flatMap(\.attempts).count == 2, "one add each, nothing since")

        let again = try await network.push(
            ["register", "--token", tokens[0], "--provider", "apns", "--no-wait"], home: "old")
        #expect(again.status == 75)
        #expect(try await network.push(["flush"], home: "old").status == 0)
        network.settle()
        #expect(network.registered == [tokens[0]])
    }

    /// With every node down, register, unregister, register: the store says at once that only
    /// the last is still to send, and the queue shows each attempt's action.
    @Test func aNewerIntentSupersedesTheUnsentOnesAtOnce() async throws {
        let network = try OutboxDevnet()
        try network.faultEveryNode("refuse")
        for arguments in [["register", "--provider", "apns"], ["unregister"], ["register", "--provider", "fcm"]] {
            let result = try await network.push(arguments + ["--token", Self.token, "--no-wait"])
            #expect(result.status == 75, "\(result.stderr)")
        }
        let queue = try await network.push(["queue"])
        #expect(
            queue.stdout.split(separator: "\n").map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
                == ["#1 add (apns): superseded", "#2 remove (apns): superseded", "#3 add (fcm): pending"],
            "\(queue.stdout)")
        try network.clearFaults()

        // A provider switch sends a remove of the old provider first: its attempt says so.
        #expect(try await network.push(["flush"]).status == 0)
        network.settle()
        #expect(
            try await network.push(["register", "--provider", "apns", "--token", Self.token, "--deadline", "20"]).status
                == 0)
        let switched = try await network.push(["queue"])
        let attempts = switched.stdout.split(separator: "\n").filter { $0.hasPrefix("    ") }.map {
            $0.split(separator: " ").first.map(String.init)
        }
        #expect(attempts == ["add", "remove", "add"], "\(switched.stdout)")
        #expect(!switched.stdout.contains("confirmed("), "outcomes in words")
    }

    /// Bad input: one line saying what is wrong, exit 64 (or 1 for a store that needs the user),
    /// and nothing written.
    @Test(arguments: [
        (
            ["register", "--token", "ABCD", "--provider", "apns"],
            "Error: invalid --token or --device-id: an APNs token is lowercase hex, 32 to 200 characters (an even number)"
        ),
        (
            ["register", "--token", String(repeating: "c3", count: 32), "--provider", "gcm"],
            "Error: '--provider' takes apns, apns-sandbox or fcm, got 'gcm'"
        ),
        (
            ["register", "--token", "short", "--provider", "fcm"],
            "Error: invalid --token or --device-id: an FCM token is 20 to 4096 characters of letters, digits, ':', '_' and '-'"
        ),
        (
            ["register", "--token", String(repeating: "c3", count: 32), "--provider", "apns", "--device-id", "a b"],
            "Error: invalid --token or --device-id: a device id is 1 to 128 characters of letters, digits, '.', ':', '_' and '-'"
        ),
        (["register", "--provider", "apns"], "Error: --token is required"),
        (["unregister"], "Error: give --token TOKEN or --all"),
        (
            ["register", "--token", String(repeating: "c3", count: 32), "--provider", "apns", "--deadline", "-1"],
            "Error: --deadline takes a number of seconds from 0 to 3600, got '-1'"
        ),
        (["flush", "--loop", "--interval", "+5"], "Error: --interval takes 1 to 86400 seconds, got '+5'"),
        (["flush", "--loop", "--interval", "0x10"], "Error: --interval takes 1 to 86400 seconds, got '0x10'"),
        (["flush", "--loop", "--interval", "0.5"], "Error: --interval takes 1 to 86400 seconds, got '0.5'"),
    ])
    func badInputIsRefusedAndNothingIsWritten(_ arguments: [String], _ message: String) async throws {
        let network = try OutboxDevnet()
        let result = try await network.push(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == message, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: network.home + "/home"), "nothing written")
    }

    @Test func aServiceKeyThatIsNotTheAddresssIsRefused() async throws {
        let network = try OutboxDevnet()
        let result = try await run(
            "adm-push",
            [
                "register", "--token", Self.token, "--provider", "apns", "--home", network.home + "/home",
                "--service-address", network.devnet.ans.address.description, "--service-public-key",
                NotificationService.adamantIOS.publicKey.hex,
            ],
            environment: [
                "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.passphrase,
            ])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: the service identity is inconsistent: the service public key belongs to U10629337621822775991, not \(network.devnet.ans.address)"
            ))
        #expect(!FileManager.default.fileExists(atPath: network.home + "/home"))
    }

    /// Homes that cannot be used, and stores that cannot be read: a clear line, the files as
    /// they were.
    @Test func unusableHomesAndStoresAreLeftAlone() async throws {
        let network = try OutboxDevnet()
        let register = ["register", "--token", Self.token, "--provider", "apns", "--deadline", "2"]
        try FileManager.default.createDirectory(
            atPath: network.home + "/open", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let open = try await network.push(register, home: "open")
        #expect(open.status == 64)
        #expect(
            open.stderr.hasPrefix(
                "Error: the home directory \(network.home)/open cannot be used: others can enter it (mode 755); run: chmod 700"
            ))

        // Another user's home, even a private one, is refused, root or not, and not told to chmod.
        if geteuid() == 0 {
            let theirs = network.home + "/theirs"
            try FileManager.default.createDirectory(
                atPath: theirs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            #expect(chown(theirs, 65534, 65534) == 0)
            let other = try await network.push(register, home: "theirs")
            #expect(other.status == 64, "\(other.stderr)")
            #expect(
                other.stderr.hasPrefix(
                    "Error: the home directory \(theirs) cannot be used: it belongs to uid 65534, not to you (uid 0); give a home of your own with --home"
                ), "\(other.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: theirs).isEmpty, "nothing made in it")
        }

        try FileManager.default.createDirectory(
            atPath: network.home + "/corrupt", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) })
        try garbage.write(to: URL(fileURLWithPath: network.home + "/corrupt/outbox.sqlite"))
        let corrupt = try await network.push(register, home: "corrupt")
        #expect(corrupt.status == 1)
        #expect(
            corrupt.stderr.hasPrefix(
                "Error: the outbox store \(network.home)/corrupt/outbox.sqlite is damaged (file is not a database): move it aside"
            ))
        #expect(try Data(contentsOf: URL(fileURLWithPath: network.home + "/corrupt/outbox.sqlite")) == garbage)

        let file = network.home + "/plain-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let notADirectory = try await network.push(register, home: "plain-file")
        #expect(notADirectory.status == 64 && notADirectory.stderr.contains("cannot be used: it is not a directory"))

        // A link of one's own to a private home elsewhere is followed; one to nothing is said as such.
        try FileManager.default.createDirectory(
            atPath: network.home + "/elsewhere", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(
            atPath: network.home + "/linked", withDestinationPath: network.home + "/elsewhere")
        let linked = try await network.push(["queue"], home: "linked")
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(FileManager.default.fileExists(atPath: network.home + "/elsewhere/outbox.sqlite"))
        try FileManager.default.createSymbolicLink(
            atPath: network.home + "/dangling", withDestinationPath: network.home + "/nowhere")
        let dangling = try await network.push(["queue"], home: "dangling")
        #expect(
            dangling.status == 64 && dangling.stderr.contains("it is a symbolic link that leads nowhere"),
            "\(dangling.stderr)")
    }

    /// A home on a read-only file system is the machine's state, not bad input: 74, saying
    /// what to do. Needs a mount of its own, so root (as in CI).
    @Test(.enabled(if: TraceTools.inCI || getuid() == 0)) func aReadOnlyHomeIsExit74() async throws {
        let network = try OutboxDevnet()
        let home = network.home + "/read-only"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let result = try await Tmpfs.with(at: home, options: "ro,mode=0700") {
            try await network.push(
                ["register", "--token", Self.token, "--provider", "apns", "--no-wait"], home: "read-only")
        }
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: the home directory \(home) cannot be written to: Read-only file system; make it writable, or give another --home\n"
        )
    }

    /// Eight processes on one home register one token at once: no error, one signal.
    @Test(arguments: [2, 8])
    func processesSharingAHomeSendOneSignal(_ count: Int) async throws {
        let network = try OutboxDevnet()
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await network.push(["register", "--token", Self.token, "--provider", "apns", "--json"])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        let queue = try await network.push(["queue", "--json"])
        struct Queue: Decodable {
            struct Intent: Decodable { let attempts: [Attempt] }
            struct Attempt: Decodable {
                let id: String
                let outcome: String
            }
            let intents: [Intent]
        }
        let intents = try JSONDecoder().decode(Queue.self, from: Data(queue.stdout.utf8)).intents
        #expect(intents.count == count, "every intent kept")
        // An attempt whose bytes never left (a starved machine's deadline passed first) is
        // kept as absent; what counts is that one signal could have reached a node.
        let attempts = intents.flatMap(\.attempts)
        #expect(
            attempts.filter { $0.outcome != "absent" }.count == 1,
            "one signal for all of them: \(attempts.map(\.outcome))")
    }

    /// The home is 0700, its files 0600, and no file holds a token in the clear.
    @Test func theStoreIsPrivateAndKeepsTokensSealed() async throws {
        let network = try OutboxDevnet()
        let register = try await network.push([
            "register", "--token", Self.token, "--provider", "apns", "--device-id", "my-laptop.1",
        ])
        #expect(register.status == 0, "\(register.stderr)")
        let home = network.home + "/home"
        var info = stat()
        #expect(stat(home, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: home)
        #expect(files.contains("outbox.sqlite"))
        for file in files {
            #expect(
                stat(home + "/" + file, &info) == 0 && info.st_mode & 0o777 == 0o600,
                "\(file) is \(String(info.st_mode & 0o777, radix: 8))")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: home + "/" + file))
            for secret in [Self.token, "my-laptop.1"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds \(secret) in the clear")
            }
        }
    }

    /// Two accounts share one home; each one's remove is its own, signed by it
    /// (docs/clients.md B5).
    @Test func accountsSharingAHomeKeepTheirOwnRegistrations() async throws {
        let network = try OutboxDevnet()
        let other = BIP39.randomMnemonic()
        let otherAccount = KeyPair(passphrase: try Passphrase(validating: other))
        _ = try network.devnet.fund(otherAccount.address, amount: ADMAmount(units: ADMAmount.unitsPerADM))
        let mine = try await network.push(["register", "--token", Self.token, "--provider", "apns"])
        #expect(mine.status == 0, "\(mine.stderr)")
        let theirs = try await network.push(
            ["register", "--token", Self.token, "--provider", "apns"], passphrase: other)
        #expect(theirs.status == 0, "\(theirs.stdout) \(theirs.stderr)")
        network.settle()
        #expect(Set(network.devnet.ansRegistrations.map(\.address)) == [network.account.address, otherAccount.address])
        #expect(try await network.push(["unregister", "--token", Self.token], passphrase: other).status == 0)
        network.settle()
        #expect(network.devnet.ansRegistrations.map(\.address) == [network.account.address])
        let queue = try await network.push(["queue"])
        #expect(
            queue.stdout.split(separator: "\n").filter { $0.contains(" #") }.count == 1,
            "the other account's intents are not this one's")
    }

    @Test func aSandboxTokenForTheIOSServiceComesWithAWarning() async throws {
        let network = try OutboxDevnet()
        let result = try await run(
            "adm-push",
            [
                "register", "--token", Self.token, "--provider", "apns-sandbox", "--no-wait", "--home",
                network.home + "/home",
            ],
            environment: [
                "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.passphrase,
            ])
        #expect(result.status == 75)
        #expect(
            result.stderr.hasPrefix(
                "Warning: the iOS notification service always pushes to production APNs and deletes a sandbox token after its first push."
            ))
    }
}
