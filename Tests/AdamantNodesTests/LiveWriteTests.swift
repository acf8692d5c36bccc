import AdamantCore
import AdamantDevnet
import Testing

@testable import AdamantNodes

/// Submissions over real sockets, checked against what the devnet's nodes and ledger saw.
@Suite(.timeLimit(.minutes(1)))
struct LiveWriteTests {
    static let chatPath = "/api/chats/process"
    let network: LiveNetwork

    init() throws { network = try LiveNetwork() }

    /// The best node queues the transfer and never answers. The same signed bytes go to the
    /// next node, which already knows the id: nothing new is created, and the id is found in
    /// the next block.
    @Test func aPostLostAfterTheNodeTookItIsFoundByItsID() async throws {
        let client = await network.client(deadline: .seconds(10)) { $0.requestTimeout = .seconds(1) }
        let best = try await client.pool.usableNodes().get()[0].url
        try network.add("timeout-after-accept", to: best)
        let balanceBefore = network.devnet.balance(of: Fixtures.sender.address)

        let amount = ADMAmount.unitsPerADM
        let result = try await client.submitTransfer(
            amount: amount, to: Fixtures.recipient.address, signedBy: Fixtures.sender)
        let id = result.transactionID
        #expect(result.attempts.count == 2 && result.attempts.first == best)
        guard case .applied(let applied, _) = result.outcome else {
            Issue.record("unexpected \(result.outcome)")
            return
        }
        #expect(applied == id)

        network.devnet.mine()  // takes the whole queue: every copy that exists is now in this block
        guard case .confirmed(let found) = try await client.locate(id) else {
            Issue.record("\(id) is not in a block")
            return
        }
        #expect(found.id == id)
        let sent = try await client.transactions(TransactionQuery(sender: Fixtures.sender.address))
        #expect(sent.transactions.map(\.id) == [id])
        let spent = balanceBefore.units - network.devnet.balance(of: Fixtures.sender.address).units
        #expect(spent == amount + Fee.transfer)
    }

    /// Whatever the best node answers, even a proxy's page, it is classified and the bytes go
    /// nowhere else: the other nodes see no POST at all.
    @Test(
        arguments: [
            (nil, "accepted"), ("status:500", "ambiguous"), ("status:503", "ambiguous"), ("garbage", "ambiguous"),
            ("status:403", "tryElsewhere"), ("status:429", "tryElsewhere"), ("html404", "tryElsewhere"),
        ] as [(String?, String)])
    func anAnsweredPostIsNeverResent(fault: String?, outcome: String) async throws {
        let client = await network.client()
        let best = try await client.pool.usableNodes().get()[0].url
        if let fault { try network.add(fault, to: best) }

        let result = try await network.sendChat("once", via: client)
        #expect(result.outcome.kind == outcome, "\(result.outcome)")
        #expect(result.attempts == [best] && result.node == best)
        #expect(try network.requests(to: best, method: "POST", path: Self.chatPath).count == 1)
        for other in network.nodes where other != best {
            #expect(try network.requests(to: other, method: "POST", path: Self.chatPath).isEmpty)
        }
    }

    @Test func aDroppedChatIsAcceptedAndNeverConfirms() async throws {
        let client = await network.client()
        let best = try await client.pool.usableNodes().get()[0].url
        try network.add("drop", to: best)

        let result = try await network.sendChat("into the void", via: client)
        #expect(result.outcome == .accepted(result.transactionID) && result.attempts == [best])
        network.devnet.mine()
        #expect(try await client.locate(result.transactionID) == .notFound)
    }
}

extension WriteOutcome {
    /// The case's name, to compare outcomes whose messages vary.
    var kind: String {
        switch self {
        case .accepted: "accepted"
        case .applied: "applied"
        case .ambiguous: "ambiguous"
        case .tryElsewhere: "tryElsewhere"
        case .clock: "clock"
        case .rejected: "rejected"
        }
    }
}
