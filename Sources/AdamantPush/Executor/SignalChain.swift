public import AdamantCore
public import AdamantNodes

/// What the outbox needs from the network: the seam between the scheduler's executor and the
/// nodes, so the same executor runs against real nodes (`NodeClient`) or a simulated chain.
public protocol SignalChain: Sendable {
    /// What the outbox's deadlines and pauses are measured on: the nodes' pool's clock, so a
    /// test clock steps through both. The same clock on every read.
    var clock: AnyClock { get }
    /// The chain height now.
    func height() async throws(NodeError) -> Int64
    /// Up to 100 signals sent by `sender` in blocks above `afterHeight`, oldest first, from
    /// `offset` on.
    func signals(sentBy sender: Address, afterHeight: Int64, offset: Int) async throws(NodeError) -> [Transaction]
    /// Where a transaction is: a block, a pool, or nowhere the nodes know.
    func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation
    /// What the account can spend now: the lower of its confirmed and unconfirmed balances.
    func spendableBalance(of address: Address) async throws(NodeError) -> ADMAmount
    /// Signs `asset` for the target node's clock, lets `willSend` record the transaction, then
    /// sends it. Throws a `NodeError` when nothing was sent.
    func send(
        _ asset: ChatAsset, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool,
        willSend: @Sendable (Transaction) async throws -> Void
    ) async throws -> SentSignal
}

extension SignalChain {
    /// The system's continuous clock, for a chain with no clock of its own.
    public var clock: AnyClock { .continuous }
}

/// What became of one send.
public struct SentSignal: Sendable, Hashable {
    /// The id of the signed transaction: what to look for on chain.
    public var id: TransactionID
    /// How the node that answered classified it.
    public var outcome: WriteOutcome
    /// The node whose answer was classified, if any answered.
    public var node: String?
    /// How many nodes received the bytes: more than one means an earlier one may hold them.
    public var nodesReached: Int

    /// What became of a send, field by field.
    public init(id: TransactionID, outcome: WriteOutcome, node: String?, nodesReached: Int) {
        self.id = id
        self.outcome = outcome
        self.node = node
        self.nodesReached = nodesReached
    }
}

/// The user's nodes as the outbox's chain: the seam's real implementation.
extension NodeClient: SignalChain {
    /// The pool's clock.
    public var clock: AnyClock { pool.clock }

    /// The account's signals from `/api/chats/get` (chat type 3), oldest first, 100 a page.
    public func signals(sentBy sender: Address, afterHeight: Int64, offset: Int) async throws(NodeError)
        -> [Transaction]
    {
        // The node's schema takes fromHeight ≥ 1; from the start means leaving it out.
        let query = ChatQuery(
            party: .sender(sender), chatType: .signal, afterHeight: afterHeight >= 1 ? afterHeight : nil, limit: 100,
            offset: offset, order: .oldestFirst)
        return try await chats(query).transactions
    }

    /// The lower of the account's confirmed and unconfirmed balances.
    public func spendableBalance(of address: Address) async throws(NodeError) -> ADMAmount {
        let balance = try await balance(of: address)
        return min(balance.balance, balance.unconfirmedBalance)
    }

    /// Sends through `submitChat(_:amount:to:signedBy:isResend:willSend:)`, stamped with the best
    /// node's clock.
    public func send(
        _ asset: ChatAsset, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool,
        willSend: @Sendable (Transaction) async throws -> Void
    ) async throws -> SentSignal {
        let result = try await submitChat(
            asset, to: recipient, signedBy: keyPair, isResend: isResend, willSend: willSend)
        return SentSignal(
            id: result.transactionID, outcome: result.outcome, node: result.node?.description,
            nodesReached: result.attempts.count)
    }
}
