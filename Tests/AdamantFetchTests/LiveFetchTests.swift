import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation
import Synchronization
import Testing

@testable import AdamantFetch

/// An in-process devnet with two funded accounts that message each other, and a fetcher for
/// the first: fetch end to end over real sockets.
final class FetchNetwork: Sendable {
    let devnet: Devnet
    let me: KeyPair
    /// What `me` is derived from.
    let myPassphrase: String
    let friend: KeyPair
    let pool: NodePool

    /// `clock` is the pool's, so the fetchers' too.
    init(nodes: Int = 2, clock: AnyClock = .continuous, configure: (inout DevnetConfiguration) -> Void = { _ in })
        async throws
    {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = nodes
        configuration.blockTime = .milliseconds(200)
        configure(&configuration)
        devnet = try Devnet(configuration)
        myPassphrase = "fetch test me \(UUID())"
        me = KeyPair(passphrase: Passphrase(unvalidated: myPassphrase))
        friend = KeyPair(passphrase: Passphrase(unvalidated: "fetch test friend \(UUID())"))
        for account in [me, friend] {
            _ = try devnet.fund(account.address, amount: ADMAmount(units: 100 * ADMAmount.unitsPerADM))
        }
        var pool = NodePool.Configuration()
        pool.statusTimeout = .seconds(3)  // generous: live tests run beside a busy core
        pool.requestTimeout = .seconds(5)
        let list = NodeList(
            endpoints: try devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) }, nethash: .majority,
            source: .arguments)
        self.pool = NodePool(nodes: list, transport: CurlTransport(), configuration: pool, clock: clock)
        await self.pool.checkHealth()
    }

    deinit { devnet.stop() }

    func fetcher(_ keyPair: KeyPair? = nil, deadline: Duration = .seconds(10)) -> Fetcher {
        fetcher(keys: AccountKeys(keyPair ?? me), deadline: deadline)
    }

    func fetcher(keys: AccountKeys, deadline: Duration = .seconds(10)) -> Fetcher {
        var configuration = Fetcher.Configuration()
        configuration.deadline = deadline
        configuration.pollInterval = .milliseconds(50)
        return Fetcher(keys: keys, client: NodeClient(pool: pool, deadline: .seconds(3)), configuration: configuration)
    }

    /// Sends `text` from `sender` to `recipient` and returns the signed transaction once a
    /// node took it (not yet in a block).
    @discardableResult
    func send(_ text: String, type: ChatType = .message, amount: Int64 = 0, from sender: KeyPair, to recipient: KeyPair)
        async throws -> Transaction
    {
        let asset = try ChatKey(secretKey: sender.secretKey, partner: recipient.publicKey).seal(text, type: type)
        let captured = Mutex<Transaction?>(nil)
        let result = try await NodeClient(pool: pool).submitChat(
            asset, amount: amount, to: recipient.address, signedBy: sender
        ) { transaction in
            captured.withLock { $0 = transaction }
        }
        guard case .accepted = result.outcome else { throw TestFailure("not accepted: \(result)") }
        return try #require(captured.withLock { $0 })
    }

    func confirmed(_ transaction: Transaction) throws -> TransactionID {
        let id = try transaction.computedID()
        devnet.mine()
        return id
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("Fetch, live", .timeLimit(.minutes(1)))
struct LiveFetchTests {
    @Test func anIncomingMessageIsFoundVerifiedAndDecrypted() async throws {
        let network = try await FetchNetwork()
        let id = try network.confirmed(try await network.send("hello there", from: network.friend, to: network.me))
        let result = await network.fetcher().fetch(PushPayload(id: id, recipient: network.me.address))
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        #expect(result.text == "hello there")
        #expect(result.thread == network.friend.address)
        #expect(result.transaction?.height != nil)
        #expect(result.notification.title == network.friend.address.description)
    }

    /// A message this account sent from another device: decrypted with the recipient's key,
    /// which confirmed list rows leave out and `/api/transactions/get` may too.
    @Test func aMessageSentFromAnotherDeviceIsReadAsTheSender() async throws {
        let network = try await FetchNetwork()
        let id = try network.confirmed(
            try await network.send("sent from my phone", from: network.me, to: network.friend))
        let unknown = await network.fetcher().fetch(PushPayload(id: id))
        #expect(
            unknown.failure == .unreadable(.unknownKey(network.friend.address)),
            "the friend never sent anything")

        _ = try network.confirmed(try await network.send("hi", from: network.friend, to: network.me))
        let result = await network.fetcher().fetch(PushPayload(id: id))
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        #expect(result.text == "sent from my phone")
        #expect(result.thread == network.friend.address)
    }

    /// A push can come before the block: the transaction is in a pool, then in a block.
    @Test func aTransactionStillInThePoolIsFound() async throws {
        let network = try await FetchNetwork { $0.blockTime = .seconds(600) }
        let sent = try await network.send("not in a block yet", from: network.friend, to: network.me)
        let result = await network.fetcher().fetch(PushPayload(id: try sent.computedID()))
        #expect(result.text == "not in a block yet")
        #expect(result.transaction?.height == nil)
    }

    /// The fetch asks, finds nothing and asks again: the transaction is sent only once a node
    /// has been asked for it. A transfer, which a node takes however long after it was signed
    /// (a chat only within seconds), so a loaded machine's slow first ask changes nothing.
    @Test func aTransactionThatAppearsLaterIsWaitedFor() async throws {
        let network = try await FetchNetwork()
        let status = try await NodeClient(pool: network.pool).status()
        let transaction = try Transaction.transfer(
            amount: 4_321, to: network.me.address, timestamp: Int32(clamping: status.nodeTimestamp),
            signedBy: network.friend)
        let id = try transaction.computedID()
        // The fetch's deadline runs from here through the test's own steps (waiting for the
        // first ask, sending): those are not what is timed, so it outlasts any loaded
        // machine's pace, and costs nothing once the transaction is found.
        // (aMissingTransactionEndsAtTheDeadline is the test of the deadline.)
        async let fetched = network.fetcher(deadline: .seconds(50)).fetch(PushPayload(id: id))
        let asked = await eventually {
            (0..<2).contains { node in
                (try? network.devnet.requests(toNode: node))?.contains { $0.path.hasPrefix("/api/transactions") }
                    == true
            }
        }
        #expect(asked, "the fetch asked a node before the transaction existed")
        let sent = try await NodeClient(pool: network.pool).submit(transaction)
        guard case .accepted = sent.outcome else {
            Issue.record("not taken: \(sent)")
            return
        }
        let result = await fetched
        #expect(result.id == id && result.transaction?.amount == 4_321, "\(String(describing: result.failure))")
    }

    @Test func aMissingTransactionEndsAtTheDeadline() async throws {
        let network = try await FetchNetwork()
        let started = ContinuousClock.now
        let result = await network.fetcher(deadline: .seconds(1)).fetch(PushPayload(id: TransactionID(number: 12345)))
        let elapsed = ContinuousClock.now - started
        guard case .notFound = result.failure else {
            Issue.record("\(String(describing: result.failure))")
            return
        }
        #expect(elapsed < .seconds(8), "well before the 25 s default: \(elapsed)")
        #expect(result.notification.body.isEmpty == false)
    }

    /// A fetch whose task is cancelled says so, not that the transaction was not found, and
    /// ends at once rather than at its deadline.
    @Test func aCancelledFetchSaysItWasCancelled() async throws {
        let network = try await FetchNetwork()
        let started = ContinuousClock.now
        let fetch = Task {
            await network.fetcher(deadline: .seconds(60)).fetch(PushPayload(id: TransactionID(number: 12345)))
        }
        fetch.cancel()
        let result = await fetch.value
        #expect(result.failure == .cancelled, "\(String(describing: result.failure))")
        #expect(ContinuousClock.now - started < .seconds(30), "long before the deadline")
        #expect(result.notification.body.isEmpty == false, "the generic text is still shown")
    }

    /// As `adm-fetch` runs it: the keys are still being derived when the fetch starts looking.
    @Test func keysStillBeingDerivedGiveTheSameNotification() async throws {
        let network = try await FetchNetwork()
        let id = try network.confirmed(try await network.send("while deriving", from: network.friend, to: network.me))
        let result = await network.fetcher(keys: AccountKeys(deriving: Passphrase(unvalidated: network.myPassphrase)))
            .fetch(PushPayload(id: id))
        #expect(result.failure == nil)
        #expect(result.text == "while deriving")

        let other = KeyPair(passphrase: Passphrase(unvalidated: "someone else"))
        let refused = await network.fetcher(keys: AccountKeys(deriving: Passphrase(unvalidated: network.myPassphrase)))
            .fetch(PushPayload(id: id, recipient: other.address))
        #expect(refused.failure == .wrongAccount(pushedFor: other.address, account: network.me.address))
        #expect(refused.text == nil)
    }

    @Test func aPushForAnotherAccountIsNotFetched() async throws {
        let network = try await FetchNetwork()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "someone else"))
        let result = await network.fetcher().fetch(PushPayload(id: TransactionID(number: 1), recipient: other.address))
        #expect(result.failure == .wrongAccount(pushedFor: other.address, account: network.me.address))
    }

    @Test func aTransactionBetweenOthersIsNeverDecrypted() async throws {
        let network = try await FetchNetwork()
        let stranger = KeyPair(passphrase: Passphrase(unvalidated: "a stranger \(UUID())"))
        let id = try network.confirmed(try await network.send("private", from: network.friend, to: stranger))
        let result = await network.fetcher().fetch(PushPayload(id: id))
        #expect(result.failure == .notOurs(sender: network.friend.address, recipient: stranger.address))
        #expect(result.text == nil)
        #expect(result.transaction == nil)
    }

    /// One node alters what it serves: its answer fails verification, the other node's wins.
    @Test func aTamperingNodeIsSetAsideAndTheNextOneAnswers() async throws {
        let network = try await FetchNetwork(nodes: 3)
        let id = try network.confirmed(try await network.send("untouched", from: network.friend, to: network.me))
        for index in 0..<2 { try network.devnet.add(Fault(parsing: "tamper"), toNode: index) }
        let result = await network.fetcher().fetch(PushPayload(id: id))
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        #expect(result.text == "untouched")
    }

    @Test func everyNodeTamperingIsUnverifiable() async throws {
        let network = try await FetchNetwork()
        let id = try network.confirmed(try await network.send("untouched", from: network.friend, to: network.me))
        for index in 0..<2 { try network.devnet.add(Fault(parsing: "tamper"), toNode: index) }
        let result = await network.fetcher(deadline: .seconds(20)).fetch(PushPayload(id: id))
        guard case .unverifiable = result.failure else {
            Issue.record("\(String(describing: result.failure))")
            return
        }
        #expect(result.text == nil)
    }

    /// A node that answers only after the whole deadline cannot hold the fetch past it.
    @Test func aSlowNodeCannotHoldTheFetchPastItsDeadline() async throws {
        let network = try await FetchNetwork(nodes: 1)
        let id = try network.confirmed(try await network.send("slow", from: network.friend, to: network.me))
        try network.devnet.add(Fault(parsing: "delay:20000@/api/transactions"), toNode: 0)
        let started = ContinuousClock.now
        let result = await network.fetcher(deadline: .seconds(1)).fetch(PushPayload(id: id))
        #expect(ContinuousClock.now - started < .seconds(10), "the node's 20 s delay was not waited out")
        #expect(result.failure != nil)
    }

    /// A carried transaction is verified like a fetched one: altered, it is refused unread.
    @Test func aCarriedTransactionIsVerified() async throws {
        let network = try await FetchNetwork()
        let sent = try await network.send("carried", from: network.friend, to: network.me)
        let fetcher = network.fetcher()
        let intact = await fetcher.fetch(PushPayload(id: try sent.computedID(), transaction: sent))
        #expect(intact.text == "carried")

        var altered = sent
        altered.amount = 1
        let result = await fetcher.fetch(PushPayload(id: try sent.computedID(), transaction: altered))
        guard case .unverifiable = result.failure else {
            Issue.record("\(String(describing: result.failure))")
            return
        }
        #expect(result.text == nil)
    }

    /// A carried transaction says itself whom the push is for, as adamant-ns pushes name no
    /// account: one this account sent is shown as sent, and one between two others is for its
    /// recipient, another account, and never decrypted.
    @Test func aCarriedTransactionSaysWhichAccountItIsFor() async throws {
        let network = try await FetchNetwork()
        let stranger = KeyPair(passphrase: Passphrase(unvalidated: "a stranger \(UUID())"))
        // The friend's key is on the chain once it has sent something: a sent message opens with it.
        _ = try network.confirmed(try await network.send("hello", from: network.friend, to: network.me))
        let sent = try await network.send("from me", from: network.me, to: network.friend)
        let shown = await network.fetcher().fetch(PushPayload(id: try sent.computedID(), transaction: sent))
        #expect(shown.failure == nil, "\(String(describing: shown.failure))")
        #expect(shown.text == "from me")
        #expect(shown.notification.body == "You: from me")

        let between = try await network.send("private", from: network.friend, to: stranger)
        let result = await network.fetcher().fetch(PushPayload(id: try between.computedID(), transaction: between))
        #expect(result.failure == .wrongAccount(pushedFor: stranger.address, account: network.me.address))
        #expect(result.text == nil)
        #expect(result.transaction == nil)
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` passes (generous: it
/// only costs time when the condition never holds).
func eventually(within timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
