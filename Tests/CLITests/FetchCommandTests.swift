import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation
import Testing

/// `adm-fetch` as a process against an in-process devnet: pushes made by the ANS emulator
/// for messages between two funded accounts.
final class FetchDevnet: Sendable {
    let outbox: OutboxDevnet
    let friend: KeyPair
    let client: NodeClient

    var devnet: Devnet { outbox.devnet }
    var me: KeyPair { outbox.account }

    /// `blockTime`: how often the devnet forges a block of its own (`send` forges one too).
    init(nodes: Int = 2, blockTime: Duration = .milliseconds(150)) async throws {
        outbox = try OutboxDevnet(nodes: nodes, blockTime: blockTime)
        friend = KeyPair(passphrase: Passphrase(unvalidated: "fetch friend \(UUID())"))
        _ = try outbox.devnet.fund(friend.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
        let list = NodeList(
            endpoints: try outbox.devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }, nethash: .majority,
            source: .arguments)
        // Generous: many of these run at once beside other process tests.
        var pool = NodePool.Configuration()
        pool.healthCheckDeadline = .seconds(20)
        pool.statusTimeout = .seconds(10)
        pool.requestTimeout = .seconds(20)
        client = NodeClient(pool: NodePool(nodes: list, configuration: pool), deadline: .seconds(45))
    }

    /// `text` from `sender` to `recipient`, in a block; the signed transaction.
    func send(_ text: String, type: ChatType = .message, from sender: KeyPair, to recipient: KeyPair, amount: Int64 = 0)
        async throws -> Transaction
    {
        let asset = try ChatKey(secretKey: sender.secretKey, partner: recipient.publicKey).seal(text, type: type)
        return try await submit { stamp in
            try Transaction.chat(
                asset, amount: amount, to: recipient.address, timestamp: stamp.timestamp,
                timestampMs: stamp.timestampMs, signedBy: sender)
        }
    }

    /// An ADM transfer whose timestamp says it was signed `ago` (nodes take a transfer from any
    /// time in the past, a chat only from the last seconds), in a block.
    func transfer(_ units: Int64, from sender: KeyPair, to recipient: KeyPair, signedAgo ago: Duration) async throws
        -> Transaction
    {
        try await submit(signedAgo: ago) { stamp in
            try Transaction.transfer(
                amount: units, to: recipient.address, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs,
                signedBy: sender)
        }
    }

    private func submit(
        signedAgo ago: Duration = .zero, _ sign: ((timestamp: Int32, timestampMs: Int64?)) throws -> Transaction
    ) async throws -> Transaction {
        let target = try await client.submissionTarget()
        var transaction = try sign(
            target.stamp(localUnixMillis: SystemWallClock().unixMillis() - Int64(ago / .milliseconds(1))))
        let result = try await client.submit(transaction, target: target.node)
        guard case .accepted = result.outcome else { throw WatchTestFailure("not accepted: \(result)") }
        _ = devnet.mine()
        transaction.id = try transaction.computedID()
        return transaction
    }

    func fetch(
        _ arguments: [String], passphrase: String? = nil, input: Data = Data(),
        environment extra: [String: String] = [:]
    ) async throws -> RunResult {
        let environment = [
            "ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": passphrase ?? outbox.passphrase,
        ].merging(extra) { $1 }
        return try await run(
            "adm-fetch", arguments + ["--home", outbox.home + "/home"], environment: environment, input: input,
            timeout: 60)
    }

    func object(_ result: RunResult) throws -> [String: Any] {
        try #require(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stdout) \(result.stderr)")
    }
}

@Suite("adm-fetch", .timeLimit(.minutes(2)))
struct FetchCommandTests {
    /// The whole path: registered through adm-push, a message from a friend, the emulated
    /// service's APNs push, and adm-fetch reading that payload from standard input.
    @Test func thePushOfARegisteredAccountIsFetchedAndShown() async throws {
        let network = try await FetchDevnet()
        let register = try await network.outbox.push([
            "register", "--token", String(repeating: "ab", count: 32), "--provider", "apns",
        ])
        #expect(register.status == 0, "\(register.stderr)")
        network.outbox.settle()
        let sent = try await network.send("see you at **noon**", from: network.friend, to: network.me)
        network.devnet.pollANS()
        let push = try #require(network.devnet.ansPushes.first { $0.transactionID == sent.id })
        let payload =
            "{\"aps\":{\"alert\":{\"loc-key\":\"NotificationsService.NewMessage.BodySingle\"},\"mutable-content\":1},\"txn-id\":\"\(push.transactionID)\",\"push-recipient\":\"\(push.recipient)\"}"

        let result = try await network.fetch(["--payload", "-", "--json"], input: Data(payload.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try network.object(result)
        #expect(object["id"] as? String == sent.id?.description)
        #expect(object["text"] as? String == "see you at **noon**")
        #expect(object["body"] as? String == "see you at noon", "Markdown stripped")
        #expect(object["kind"] as? String == "message")
        #expect(object["title"] as? String == network.friend.address.description)
        #expect(object["thread"] as? String == network.friend.address.description)
        #expect(object["senderId"] as? String == network.friend.address.description)
        #expect(object["verified"] as? Bool == true)
        #expect(object["fallback"] as? Bool == false)
        #expect(object["duplicate"] as? Bool == false)
        #expect((object["height"] as? Int ?? 0) > 0)

        // The same push again (APNs may deliver twice): shown, marked a duplicate.
        let again = try await network.fetch([push.transactionID.description, "--json"])
        #expect(try network.object(again)["duplicate"] as? Bool == true)
    }

    /// FCM style: the whole transaction in `data.txn`, no node needed; altered, refused (65).
    @Test func anFCMPayloadIsVerifiedAndAnAlteredOneRefused() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send("carried", from: network.friend, to: network.me)
        let json = String(decoding: try JSONEncoder().encode(sent), as: UTF8.self)
        func payload(_ transaction: String) throws -> Data {
            Data("{\"data\":{\"txn\":\(String(decoding: try JSONEncoder().encode(transaction), as: UTF8.self))}}".utf8)
        }
        let intact = try await network.fetch(
            ["--payload", "-", "--json", "--node", "http://127.0.0.1:9"], input: try payload(json))
        #expect(intact.status == 0, "\(intact.stderr)")
        #expect(try network.object(intact)["text"] as? String == "carried")

        let altered = json.replacingOccurrences(of: "\"amount\":0", with: "\"amount\":1")
        #expect(altered != json)
        let refused = try await network.fetch(["--payload", "-", "--json"], input: try payload(altered))
        #expect(refused.status == 65, "\(refused.stderr)")
        let object = try network.object(refused)
        #expect(object["fallback"] as? Bool == true)
        #expect(object["text"] == nil)
        #expect((object["reason"] as? String)?.contains("cannot be verified") == true, "\(object)")
    }

    /// adamant-ns's FCM push: the whole transaction in `data.txn`, beside `txn-id` and
    /// `push-recipient` that service fills with fixed placeholders. The push is the carried
    /// transaction's whatever they hold (another transaction's id is never asked for), and it is
    /// for the transaction's recipient: a third account's passphrase is told so (64).
    @Test func anAdamantNSPushIsTheCarriedTransactionsWhateverItsPlaceholders() async throws {
        let network = try await FetchDevnet()
        let other = try await network.send("another", from: network.me, to: network.friend)
        let sent = try await network.send("carried", from: network.friend, to: network.me)
        let json = String(decoding: try JSONEncoder().encode(sent), as: UTF8.self)
        let carried = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        func payload(_ placeholders: String) -> Data {
            Data("{\"message\":{\"token\":\"t\",\"data\":{\(placeholders),\"txn\":\(carried)}}}".utf8)
        }
        for placeholders in [
            #""txn-id":"0","push-recipient":"U0000000000000000000""#,
            #""txn-id":"txn-id","push-recipient":"push-recipient""#,
            "\"txn-id\":\"\(try #require(other.id))\",\"push-recipient\":\"\(network.friend.address)\"",
        ] {
            for index in 0..<2 { try network.devnet.clearRequests(toNode: index) }
            let result = try await network.fetch(["--payload", "-", "--json"], input: payload(placeholders))
            #expect(result.status == 0, "\(placeholders): \(result.stderr)")
            let object = try network.object(result)
            #expect(object["id"] as? String == sent.id?.description, "\(placeholders)")
            #expect(object["text"] as? String == "carried")
            #expect(object["verified"] as? Bool == true)
            let asked = try (0..<2).flatMap { try network.devnet.requests(toNode: $0).map(\.path) }
            #expect(!asked.contains { $0.hasPrefix("/api/transactions") }, "\(placeholders): \(asked)")
        }

        let words = BIP39.randomMnemonic()
        let third = KeyPair(passphrase: try Passphrase(validating: words)).address
        let refused = try await network.fetch(
            ["--payload", "-", "--no-names"], passphrase: words,
            input: payload(#""txn-id":"0","push-recipient":"U0000000000000000000""#))
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stdout == "ADAMANT\nNew message\n", "\(refused.stdout)")
        #expect(
            refused.stderr.hasPrefix(
                "Error: the push is for \(network.me.address), not for this passphrase's account \(third):"),
            "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }

    /// libcurl starts loading as the fetch starts when a node will be asked, and is not loaded
    /// at all when none is: a payload that carries its transaction, with no names to look up
    /// (glibc's loader says what it opens under LD_DEBUG=files).
    @Test func libcurlIsLoadedOnlyWhenANodeIsAsked() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send("carried", from: network.friend, to: network.me)
        let json = String(decoding: try JSONEncoder().encode(sent), as: UTF8.self)
        let payload = Data(
            "{\"data\":{\"txn\":\(String(decoding: try JSONEncoder().encode(json), as: UTF8.self))}}".utf8)
        let loader = ["LD_DEBUG": "files"]

        let carried = try await network.fetch(
            ["--payload", "-", "--json", "--no-names"], input: payload, environment: loader)
        #expect(carried.status == 0 && carried.stderr.contains("file=libsodium"), "\(carried.stderr)")
        #expect(!carried.stderr.contains("libcurl"), "loaded with no node to ask")
        #expect(try network.object(carried)["text"] as? String == "carried")

        let named = try await network.fetch(["--payload", "-", "--json"], input: payload, environment: loader)
        #expect(named.status == 0 && named.stderr.contains("file=libcurl.so"), "\(named.stderr)")
        let byID = try await network.fetch(
            [try #require(sent.id).description, "--json", "--no-names"], environment: loader)
        #expect(byID.status == 0 && byID.stderr.contains("file=libcurl.so"), "\(byID.stderr)")
        #expect(try network.object(byID)["text"] as? String == "carried")
    }

    /// Rich messages made on the devnet, received and sent (from another device), as the
    /// process shows them: the kind and the one-line body.
    @Test(arguments: [
        (
            #"{"type":"eth_transaction","amount":"0.002","hash":"0xfa46","comments":"gas"}"#, "cryptoTransfer",
            "Sent you 0.002 ETH: gas", "You sent 0.002 ETH: gas"
        ),
        (#"{"replyto_id":"1","reply_message":"sure"}"#, "reply", "sure", "You: sure"),
        (#"{"reactto_id":"1","react_message":"👍"}"#, "reaction", "Reacted 👍", "You reacted 👍"),
        (#"{"reactto_id":"1","react_message":""}"#, "reaction", "Removed a reaction", "You removed a reaction"),
        (
            #"{"files":[{"id":"Qm","mimeType":"image/jpeg"}],"storage":{"id":"ipfs"},"comment":"look"}"#, "file",
            "📸 look", "You: 📸 look"
        ),
        (#"{"type":"poll","text_fallback":"Vote: yes or no"}"#, "unknown", "Vote: yes or no", "You: Vote: yes or no"),
    ])
    func richMessagesInBothDirections(_ json: String, _ kind: String, _ incoming: String, _ outgoing: String)
        async throws
    {
        let network = try await FetchDevnet()
        let received = try await network.send(json, type: .rich, from: network.friend, to: network.me)
        let sent = try await network.send(json, type: .rich, from: network.me, to: network.friend)
        for (transaction, body) in [(received, incoming), (sent, outgoing)] {
            let result = try await network.fetch([try #require(transaction.id).description, "--json", "--no-names"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try network.object(result)
            #expect(object["kind"] as? String == kind)
            #expect(object["body"] as? String == body)
            #expect(object["text"] as? String == json)
            #expect(object["thread"] as? String == network.friend.address.description)
        }
    }

    /// A transfer with a comment, in text mode: the title line, then the body line.
    @Test func aTransferWithACommentIsShownAsATransfer() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send("for lunch", from: network.friend, to: network.me, amount: 150_000_000)
        let result = try await network.fetch([try #require(sent.id).description])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(network.friend.address)\nSent you 1.5 ADM: for lunch\n")
    }

    /// The title is the partner's name from the account's encrypted address book, asked of
    /// the nodes once and then read from the home for a few minutes; `--no-names` skips it.
    @Test func theTitleIsThePartnersNameFromTheAddressBook() async throws {
        let network = try await FetchDevnet()
        let value = try KVSKey(keyPair: network.me).seal(payload: [
            network.friend.address.description: ["displayName": "Alice"]
        ])
        let stored = try await network.client.submitState(key: "contact_list", value: value, signedBy: network.me)
        guard case .accepted = stored.outcome else {
            Issue.record("\(stored)")
            return
        }
        let sent = try await network.send("hi", from: network.friend, to: network.me)
        let id = try #require(sent.id).description

        let named = try await network.fetch([id, "--json"])
        #expect(try network.object(named)["title"] as? String == "Alice", "\(named.stderr)")
        for index in 0..<2 { try network.devnet.clearRequests(toNode: index) }
        let again = try await network.fetch([id, "--json"])
        #expect(try network.object(again)["title"] as? String == "Alice")
        let asked = try (0..<2).flatMap { try network.devnet.requests(toNode: $0).map(\.path) }
        #expect(!asked.contains("/api/states/get"), "the cached list was used: \(asked)")

        let plain = try await network.fetch([id, "--json", "--no-names"])
        #expect(try network.object(plain)["title"] as? String == network.friend.address.description)
    }

    /// Pushes stopped: a message came without one after a pushed message. `status` says so and
    /// `repair` sends the registration again although the chain holds it.
    @Test func statusTellsWhenPushesStoppedAndRepairRegistersAgain() async throws {
        let network = try await FetchDevnet()
        let token = String(repeating: "cd", count: 32)
        #expect(try await network.outbox.push(["register", "--token", token, "--provider", "apns"]).status == 0)
        let pushed = try await network.send("pushed", from: network.friend, to: network.me)
        #expect(try await network.fetch([try #require(pushed.id).description]).status == 0)
        _ = try await network.send("never pushed, but may still be on its way", from: network.friend, to: network.me)
        let young = try await network.outbox.push(["status"])
        #expect(
            young.status == 0 && !young.stderr.contains("Warning"),
            "within the grace: too young to tell: \(young.stderr)")

        // Signed eleven minutes ago: past the ten-minute grace, so no push is coming for it.
        _ = try await network.transfer(1_000_000, from: network.friend, to: network.me, signedAgo: .seconds(660))
        let status = try await network.outbox.push(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stderr.contains("Warning: pushes are probably not arriving: 1 transaction since "),
            "\(status.stderr)")
        let signals = network.devnet.confirmedTransactions.filter { $0.chat?.type == .signal }.count

        let repair = try await network.outbox.push(["repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.contains("Evidence: pushes are probably not arriving"), "\(repair.stderr)")
        #expect(
            network.devnet.confirmedTransactions.filter { $0.chat?.type == .signal }.count == signals + 1,
            "one more add")
    }

    @Test func aPushForAnotherAccountSaysWhichAccountItWasFor() async throws {
        let network = try await FetchDevnet()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "another account"))
        let result = try await network.fetch(["123", "--recipient", other.address.description])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains(
                "the push is for \(other.address), not for this passphrase's account \(network.me.address)"),
            "\(result.stderr)")
    }

    @Test func aTransactionBetweenOthersIsNotShown() async throws {
        let network = try await FetchDevnet()
        let stranger = KeyPair(passphrase: Passphrase(unvalidated: "a stranger \(UUID())"))
        let sent = try await network.send("not yours", from: network.friend, to: stranger)
        let result = try await network.fetch([try #require(sent.id).description])
        #expect(result.status == 65)
        #expect(!result.stdout.contains("not yours"))
        #expect(result.stdout.split(separator: "\n").count == 2, "the generic title and body: \(result.stdout)")
    }

    @Test func aMissingTransactionIsUnavailableByTheDeadline() async throws {
        let network = try await FetchDevnet()
        let started = ContinuousClock.now
        let result = try await network.fetch(["4242", "--deadline", "1", "--json"])
        #expect(result.status == 69, "\(result.stderr)")
        // Far from the 25 s default, with room for a loaded machine's process starts.
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try network.object(result)["fallback"] as? Bool == true)
    }

    /// The health measured by one run is used by the next: a cold fetch asks the node that
    /// answered before, with no status round first (and never waits on a silent node's status).
    @Test func theNextRunUsesTheHealthTheLastOneMeasured() async throws {
        let network = try await FetchDevnet()
        let sent = try await network.send("fast", from: network.friend, to: network.me)
        try network.devnet.add(Fault(parsing: "blackhole"), toNode: 0)
        let first = try await network.fetch([try #require(sent.id).description, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let cache = try #require(FileManager.default.contents(atPath: network.outbox.home + "/home/node-health.json"))
        #expect(String(decoding: cache, as: UTF8.self).contains("\"usable\":true"))

        for index in 0..<2 { try network.devnet.clearRequests(toNode: index) }
        let result = try await network.fetch([try #require(sent.id).description, "--json", "--no-names"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try network.devnet.requests(toNode: 1).map(\.path) == ["/api/transactions/get"], "straight to the fetch")
        #expect(try network.devnet.requests(toNode: 0).isEmpty, "the silent node was not asked")
    }

    @Test(arguments: [
        (["12x"], "is not a transaction id"), (["1", "2"], "unexpected argument"),
        (["1", "--payload", "-"], "not both"),
        (["1", "--recipient", "U1x"], "is not an address"), (["1", "--deadline", "-3"], "--deadline"),
        (["--payload", "/nonexistent/p"], "cannot read --payload"),
        (["--payload", "/dev/null"], "not a regular file"), (["1", "--deadline", "0x10"], "--deadline"),
        (["1", "--deadline", "1e1"], "--deadline"),
    ])
    func badInputIsAUsageError(_ arguments: [String], _ message: String) async throws {
        let network = try await FetchDevnet()
        let result = try await network.fetch(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        // A push that cannot be read still leaves the extension something to show.
        #expect(result.stdout == (arguments.first == "--payload" ? "ADAMANT\nNew message\n" : ""), "\(result.stdout)")
    }

    /// A payload that is read but is no push: the field it gets wrong, or what it is instead,
    /// with the generic text on standard output (in JSON too).
    @Test(arguments: [
        (
            "{\"data\":{\"txn\":\"garbage\"}}",
            "Error: --payload: the payload's \"txn\" is not a transaction: malformed JSON at byte 0: expected a value (a string in double quotes, a number, a list, an object, true, false or null)"
        ),
        (
            String(repeating: "{\"data\":", count: 40) + "{}" + String(repeating: "}", count: 40),
            "Error: --payload: the payload nests deeper than 32 levels, which no push does"
        ),
        ("[1]", "Error: --payload: the payload is JSON but not an object"),
        ("{\"txn-id\":", "Error: --payload: the payload is not JSON"),
    ])
    func aPayloadThatIsNoPushSaysWhyAndShowsTheGenericText(_ payload: String, _ message: String) async throws {
        let network = try await FetchDevnet()
        let text = try await network.fetch(["--payload", "-"], input: Data(payload.utf8))
        #expect(text.status == 64)
        #expect(text.stderr == message + "\n")
        #expect(text.stdout == "ADAMANT\nNew message\n")
        let json = try await network.fetch(["--payload", "-", "--json"], input: Data(payload.utf8))
        let object = try network.object(json)
        #expect(
            object["title"] as? String == "ADAMANT" && object["body"] as? String == "New message"
                && object["fallback"] as? Bool == true)
        #expect(object["reason"] as? String == String(message.dropFirst("Error: ".count)))
    }
}
