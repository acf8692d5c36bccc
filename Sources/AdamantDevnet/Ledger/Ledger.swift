import AdamantCore

/// One shared chain and pool, as every simulated node sees it: accounts, blocks, confirmed
/// transactions and the queued → unconfirmed → block pipeline. Pure state; the caller passes
/// the time and serialises access.
struct Ledger: Sendable {
    struct Rules: Sendable {
        var maxTransactionsPerBlock = 25
        /// `transactions.maxTxsPerQueue`.
        var poolCapacity = 1000
        /// Pool transactions are dropped after 3 h.
        var poolExpiryMillis: Int64 = 10_800_000
    }

    struct Account: Sendable {
        var balance: Int64 = 0
        var unconfirmedBalance: Int64 = 0
        /// Known once the account has a transaction in a block.
        var publicKey: PublicKey?
    }

    struct Block: Sendable {
        let height: Int64
        let id: String
        /// Seconds since the ADAMANT epoch.
        let timestamp: Int64
        let forgedAtUnixMillis: Int64
        let transactionIDs: [TransactionID]
    }

    struct Pooled: Sendable {
        var transaction: Transaction
        let receivedAtUnixMillis: Int64
    }

    /// Why the faucet refused: funds issued outside transactions never pass the network's total
    /// supply, so no balance, and no sum the ledger forms (balance + amount, amount + fee), can
    /// come near the end of Int64.
    struct CreditRefused: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    let rules: Rules
    /// Everything credited at genesis and by the faucet, in units.
    private(set) var issuedUnits: Int64 = 0
    private(set) var accounts: [Address: Account] = [:]
    private(set) var blocks: [Block]
    /// Confirmed transactions in chain order, with `height`, `blockId` and `blockTimestamp` set.
    private(set) var chain: [Transaction] = []
    private var chainIndex: [TransactionID: Int] = [:]
    private(set) var queued: [Pooled] = []
    private(set) var unconfirmed: [Pooled] = []
    private var admissions: [Transaction] = []

    init(rules: Rules = Rules(), genesisUnixMillis: Int64) {
        self.rules = rules
        let timestamp = AdamantTime.timestamp(unixMillis: genesisUnixMillis)
        blocks = [
            Block(
                height: 1, id: Self.blockID(height: 1, previous: "", transactions: []),
                timestamp: timestamp, forgedAtUnixMillis: genesisUnixMillis, transactionIDs: [])
        ]
    }

    var height: Int64 { blocks[blocks.count - 1].height }
    var lastBlock: Block { blocks[blocks.count - 1] }

    // MARK: Accounts

    /// Adds funds outside any transaction: genesis allocations and the faucet.
    mutating func credit(_ address: Address, units: Int64) throws(CreditRefused) {
        let supply = ADMAmount.totalSupply
        guard units >= 0 else {
            throw CreditRefused(description: "cannot fund a negative amount (\(ADMAmount(units: units)) ADM)")
        }
        guard units <= supply.units - issuedUnits else {
            throw CreditRefused(
                description: "funding \(ADMAmount(units: units)) ADM would take the devnet past the total supply of "
                    + "\(supply) ADM (\(ADMAmount(units: issuedUnits)) ADM issued so far)")
        }
        issuedUnits += units
        accounts[address, default: Account()].balance += units
        accounts[address, default: Account()].unconfirmedBalance += units
    }

    func account(_ address: Address) -> Account? { accounts[address] }

    // MARK: Lookups

    func confirmed(_ id: TransactionID) -> Transaction? { chainIndex[id].map { chain[$0] } }

    func isPooled(_ id: TransactionID) -> Bool {
        queued.contains { $0.transaction.id == id } || unconfirmed.contains { $0.transaction.id == id }
    }

    // MARK: Pool and blocks

    /// Puts an admitted transaction at the end of the queue.
    mutating func enqueue(_ transaction: Transaction, nowUnixMillis: Int64) {
        queued.append(Pooled(transaction: transaction, receivedAtUnixMillis: nowUnixMillis))
        admissions.append(transaction)
    }

    /// The transactions admitted since the last call, for the nodes' sockets to announce.
    mutating func takeAdmissions() -> [Transaction] {
        defer { admissions = [] }
        return admissions
    }

    /// The pool's tick: expire old transactions, then move up to a block's worth from the queue
    /// to unconfirmed, applying each to its sender's unconfirmed balance. One that no longer
    /// fits is dropped without a word, as the node does. Returns the ids dropped.
    @discardableResult
    mutating func promote(nowUnixMillis: Int64) -> [TransactionID] {
        let expiry = rules.poolExpiryMillis
        let isFresh = { (entry: Pooled) in nowUnixMillis - entry.receivedAtUnixMillis <= expiry }
        var dropped = (queued + unconfirmed).filter { !isFresh($0) }.compactMap(\.transaction.id)
        for expired in unconfirmed where !isFresh(expired) { refundUnconfirmed(expired.transaction) }
        queued.removeAll { !isFresh($0) }
        unconfirmed.removeAll { !isFresh($0) }

        let batch = queued.prefix(rules.maxTransactionsPerBlock)
        queued.removeFirst(batch.count)
        for entry in batch {
            let sender = entry.transaction.senderPublicKey.address
            let cost = entry.transaction.amount + (entry.transaction.fee ?? 0)
            guard let account = accounts[sender], account.unconfirmedBalance >= cost else {
                dropped.append(entry.transaction.id!)
                continue
            }
            accounts[sender]?.unconfirmedBalance -= cost
            unconfirmed.append(entry)
        }
        return dropped
    }

    /// Forges the next block from up to 25 unconfirmed transactions and applies them: the
    /// sender pays amount and fee, the recipient receives the amount.
    @discardableResult
    mutating func forge(nowUnixMillis: Int64) -> Block {
        let batch = Array(unconfirmed.prefix(rules.maxTransactionsPerBlock))
        unconfirmed.removeFirst(batch.count)
        let ids = batch.compactMap(\.transaction.id)
        let block = Block(
            height: height + 1, id: Self.blockID(height: height + 1, previous: lastBlock.id, transactions: ids),
            timestamp: AdamantTime.timestamp(unixMillis: nowUnixMillis), forgedAtUnixMillis: nowUnixMillis,
            transactionIDs: ids)
        for entry in batch {
            var transaction = entry.transaction
            transaction.height = block.height
            transaction.blockId = block.id
            transaction.blockTimestamp = block.timestamp
            apply(transaction)
            chainIndex[transaction.id!] = chain.count
            chain.append(transaction)
        }
        blocks.append(block)
        return block
    }

    private mutating func apply(_ transaction: Transaction) {
        let sender = transaction.senderPublicKey.address
        accounts[sender, default: Account()].balance -= transaction.amount + (transaction.fee ?? 0)
        accounts[sender]?.publicKey = transaction.senderPublicKey
        if let recipient = transaction.recipientId, transaction.amount > 0 {
            accounts[recipient, default: Account()].balance += transaction.amount
            accounts[recipient, default: Account()].unconfirmedBalance += transaction.amount
        }
    }

    private mutating func refundUnconfirmed(_ transaction: Transaction) {
        accounts[transaction.senderPublicKey.address]?.unconfirmedBalance += transaction.amount + (transaction.fee ?? 0)
    }

    /// A block id in the node's form: the decimal of the first 8 bytes (little-endian) of a
    /// SHA-256, here over the height, the previous id and the transaction ids.
    private static func blockID(height: Int64, previous: String, transactions: [TransactionID]) -> String {
        let seed = "\(height):\(previous):" + transactions.map(\.description).joined(separator: ",")
        return String(Digest.leadingUInt64(ofSHA256: Array(seed.utf8)))
    }
}
