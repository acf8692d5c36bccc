import AdamantCLI
import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

/// `adm-devnet demo`: a fresh network, real signed transactions sent over HTTP, and a push
/// registration seen from the service's side. What a client integrating adm-push does, in order.
struct DemoCommand: Command {
    static let info = CommandInfo(
        name: "demo",
        overview:
            "Start a fresh devnet, send transfers, messages and push registrations, and show what both services see.",
        options: [])

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else {
            throw .usage("unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional))")
        }
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        do {
            try await Demo(output: context.output).run()
            return .success
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("the demo failed: \(error)", exitCode: .rejected)
        }
    }
}

struct Demo {
    let output: Output

    func run() async throws {
        var configuration = DevnetConfiguration()
        configuration.blockTime = .milliseconds(500)
        configuration.freshAccounts = 2
        // Both services are polled by hand below, to show each step.
        configuration.ansPollInterval = .seconds(3600)
        configuration.nsPollInterval = .seconds(3600)
        let devnet = try Devnet(configuration)
        defer { devnet.stop() }
        let alice = devnet.accounts[0].account
        let bob = devnet.accounts[1].account
        let service = try NotificationService(address: devnet.ans.address, publicKey: devnet.ans.publicKey)

        say(
            "1. A devnet: \(devnet.nodeURLs.count) nodes on 127.0.0.1, a block every 0.5 s, and an ANS emulator (\(service.address))."
        )
        say("   alice \(alice.address) and bob \(bob.address) have 100 ADM each.")

        let nodes = try NodeList(
            endpoints: devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) },
            nethash: .pinned(Nethash(devnet.nethash)!), source: .arguments)
        let client = NodeClient(pool: NodePool(nodes: nodes))
        let usable = await client.pool.checkHealth().filter(\.health.isUsable)
        say(
            "2. Health check: \(usable.count) of \(devnet.nodeURLs.count) nodes usable, at height \(usable.first?.status?.height ?? 0)."
        )

        let transfer = try await client.submitTransfer(amount: 150_000_000, to: bob.address, signedBy: alice.keyPair)
        say("3. alice sends bob 1.5 ADM: \(try await confirmed(transfer, client))")

        let token = String(repeating: "5e", count: 32)
        let add = try PushSignal(token: token, provider: .apns, action: .add)
        let registration = try await sendSignal(add, from: alice, to: service, client)
        say(
            "4. alice registers an APNs token with the ANS by an encrypted signal (chat type 3): \(try await confirmed(registration, client))"
        )
        say("   It reads: \(add.plaintext)")
        devnet.pollANS()
        for device in devnet.ansRegistrations {
            say("   The ANS registry now holds \(device.address) \(device.provider) \(device.token.prefix(12))…")
        }

        let text = "Lunch at noon?"
        let message = try ChatKey(secretKey: bob.keyPair.secretKey, partner: alice.publicKey).seal(text)
        let sent = try await client.submitChat(message, to: alice.address, signedBy: bob.keyPair)
        say("5. bob sends alice an encrypted message: \(try await confirmed(sent, client))")
        devnet.pollANS()
        guard let push = devnet.ansPushes.last else { throw DemoError("the ANS recorded no push") }
        say(
            "   The ANS would push {\"txn-id\": \"\(push.transactionID)\", \"push-recipient\": \"\(push.recipient)\"} to that token."
        )

        guard let fetched = try await client.transaction(push.transactionID) else {
            throw DemoError("the pushed transaction is not on the nodes")
        }
        let plaintext = try fetched.decryptMessage(with: alice.keyPair, partner: fetched.senderPublicKey)
        say(
            "6. alice's device fetches \(push.transactionID), checks its signature and id, and decrypts it: \"\(plaintext)\""
        )

        // The race adm-push's outbox exists for, as the iOS app runs it: a remove queued offline
        // that lands after the next add and undoes it.
        try refuseEveryNode(devnet)
        let remove = try PushSignal(token: token, provider: .apns, action: .remove)
        let stale = try signSignal(remove, from: alice, to: service, client)
        say("7. alice logs out while her nodes are down: the iOS app signs remove(T) and keeps it to resend.")
        try clearFaults(devnet)
        await client.pool.checkHealth()
        say(
            "   She logs back in: the app sends add(T): \(try await confirmed(try await sendSignal(add, from: alice, to: service, client), client))."
        )
        devnet.pollANS()
        say("   The ANS polls: alice holds \(devnet.registrations(of: alice.address)) device(s).")
        let replayed = try await client.submit(stale)
        say(
            "   The app's next launch resends the kept remove: \(try await confirmed(replayed, client)), after the add."
        )
        devnet.pollANS()
        say(
            "   The ANS polls again and deletes the registration: alice holds \(devnet.registrations(of: alice.address)) device(s),"
        )
        say("   while the app, whose stored token is still T, never registers it again. Pushes stop, silently.")

        // The same sequence through adm-push, run as a user runs it.
        let tools = try DemoTools(devnet: devnet)
        defer { tools.remove() }
        let bobToken = String(repeating: "b0", count: 32)
        let register = ["register", "--token", bobToken, "--provider", "apns", "--json"]
        let first = try await tools.push(register, as: bob, expecting: 0)
        devnet.pollANS()
        say(
            "8. bob does the same through adm-push. He registers: the ANS holds \(devnet.registrations(of: bob.address)) device(s)."
        )
        try refuseEveryNode(devnet)
        // Exit 75: stored, not yet applied.
        _ = try await tools.push(["unregister", "--token", bobToken, "--deadline", "1"], as: bob, expecting: 75)
        say("   He logs out while his nodes are down: the outbox keeps the intent remove(T), no signed bytes.")
        try clearFaults(devnet)
        let login = try await tools.push(register, as: bob, expecting: 0)
        say("   He logs back in: the stale remove is cancelled, never sent; the chain already holds his add, so")
        // Applied at the block of the first add: a signal sent now would land in a later one.
        guard let height = first.appliedHeight, login.appliedHeight == height, login.nothingInFlight else {
            throw DemoError("the outbox did not end applied with nothing sent: \(login.output)")
        }
        say("   nothing is sent either: the intent is applied by the add already in block \(height).")
        for _ in 0..<3 {
            devnet.mine()
            devnet.pollANS()
        }
        say("   After more polls the ANS still holds \(devnet.registrations(of: bob.address)) device(s) for bob.")

        try await watchBothWays(alice: alice, bob: bob, tools, client)
        try await adamantNS(alice: alice, bob: bob, devnet: devnet, tools: tools)

        let balances = try await (client.balance(of: alice.address).balance, client.balance(of: bob.address).balance)
        say(
            "Balances: alice \(balances.0) ADM, bob \(balances.1) ADM (a transfer costs 0.5 ADM, a message or signal 0.001)."
        )
    }

    /// What `adm-fetch watch` gives a desktop no push service reaches: the same message seen
    /// by a live watch (the nodes' sockets) and by one that only polls, at the defaults.
    private func watchBothWays(alice: DevnetAccount, bob: DevnetAccount, _ tools: DemoTools, _ client: NodeClient)
        async throws
    {
        let live = try tools.watch(as: alice, arguments: [], home: "watch-live")
        defer { live.stop() }
        let polling = try tools.watch(as: alice, arguments: ["--no-live"], home: "watch-polling")
        defer { polling.stop() }
        // As a watch a user keeps running would be: started, and the live one subscribed.
        try await polling.started()
        try await live.subscribed()
        let message = try ChatKey(secretKey: bob.keyPair.secretKey, partner: alice.publicKey).seal(
            "Are you at your desk?")
        // From the moment bob sends: a node announces what it admits before its answer to the
        // sender is read, so the live watch can be ahead of that answer.
        let sending = ContinuousClock.now
        let sent = try await client.submitChat(message, to: alice.address, signedBy: bob.keyPair)
        guard sent.outcome.isSuccess else { throw DemoError("the node refused it: \(sent.outcome)") }
        async let liveShown = live.firstNotification()
        async let polledShown = polling.firstNotification()
        let (shownLive, shownPolled) = try await (liveShown, polledShown)
        func delay(_ instant: ContinuousClock.Instant) -> String {
            let elapsed = (instant - sending).components
            return "\(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000) ms"
        }
        say(
            "9. No push service reaches a Linux desktop: adm-fetch watch follows alice's account instead. bob writes again;"
        )
        say("   the live watch (the nodes' sockets) shows it \(delay(shownLive)) after bob sent it, before any block;")
        say("   the one that only polls (--no-live, every 10 s) \(delay(shownPolled)) after, once a block held it.")
        await live.end()
        await polling.end()
    }

    private func sendSignal(
        _ signal: PushSignal, from account: DevnetAccount, to service: NotificationService, _ client: NodeClient
    ) async throws -> SubmitResult {
        let asset = try ChatKey(secretKey: account.keyPair.secretKey, partner: service.publicKey).seal(
            signal.plaintext, type: .signal)
        return try await client.submitChat(asset, to: service.address, signedBy: account.keyPair)
    }

    /// A signal signed now and kept, as the iOS app keeps a remove it could not send.
    private func signSignal(
        _ signal: PushSignal, from account: DevnetAccount, to service: NotificationService, _ client: NodeClient
    ) throws -> Transaction {
        let now = AdamantTime.timestamp(unixMillis: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        return try Transaction.signal(signal, to: service, timestamp: Int32(now - 1), signedBy: account.keyPair)
    }

    private func refuseEveryNode(_ devnet: Devnet) throws {
        for index in devnet.nodeURLs.indices { try devnet.add(Fault(parsing: "refuse"), toNode: index) }
    }

    private func clearFaults(_ devnet: Devnet) throws {
        for index in devnet.nodeURLs.indices { try devnet.clearFaults(ofNode: index) }
    }

    /// Waits, polling the nodes by id, until the transaction is in a block.
    private func confirmed(_ result: SubmitResult, _ client: NodeClient) async throws -> String {
        guard result.outcome.isSuccess else { throw DemoError("the node refused it: \(result.outcome)") }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if case .confirmed(let transaction) = try await client.locate(result.transactionID) {
                return "id \(result.transactionID), in block \(transaction.height ?? 0)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DemoError("\(result.transactionID) was not confirmed within 15 s")
    }

    func say(_ line: String) { output.print(line) }
}

extension Devnet {
    fileprivate func registrations(of address: Address) -> Int {
        ansRegistrations.filter { $0.address == address }.count
    }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
