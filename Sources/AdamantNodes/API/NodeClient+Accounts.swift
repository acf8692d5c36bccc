public import AdamantCore

/// An account as a node reports it, its public key checked against its address.
public struct Account: Sendable, Hashable, Decodable {
    /// The account's address, checked to be the one asked for.
    public var address: Address
    /// Its confirmed balance: what the blocks give it.
    public var balance: ADMAmount
    /// The balance with the node's pool applied.
    public var unconfirmedBalance: ADMAmount
    /// Nil until the account has sent a transaction.
    public var publicKey: PublicKey?

    private enum Keys: String, CodingKey { case address, balance, unconfirmedBalance, publicKey }

    /// Decodes the node's `account` object, refusing a public key that does not hash to the
    /// address.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        address = try container.decode(Address.self, forKey: .address)
        balance = try container.decode(ADMAmount.self, forKey: .balance)
        unconfirmedBalance = try container.decode(ADMAmount.self, forKey: .unconfirmedBalance)
        let key = try container.decodeIfPresent(String.self, forKey: .publicKey) ?? ""
        publicKey = key.isEmpty ? nil : try container.decode(PublicKey.self, forKey: .publicKey)
    }
}

/// An account's balances as a node reports them.
public struct Balance: Sendable, Hashable, Decodable {
    /// The confirmed balance: what the blocks give the account.
    public var balance: ADMAmount
    /// The balance with the node's pool applied: what a new transaction may spend.
    public var unconfirmedBalance: ADMAmount
}

extension NodeClient {
    /// The key an address signs with, checked to hash to that address; nil while the account
    /// has never sent a transaction.
    public func publicKey(of address: Address) async throws(NodeError) -> PublicKey? {
        struct Body: Decodable { var publicKey: PublicKey }
        return try await get(
            "/api/accounts/getPublicKey", [("address", address.description)], until: callDeadline,
            ifAbsent: (["Account not found"], nil)
        ) { (body: Body) in
            guard body.publicKey.address == address else {
                throw AnswerRejection(
                    description: "public key \(body.publicKey) belongs to \(body.publicKey.address), not \(address)")
            }
            return body.publicKey
        }
    }

    /// Nil when the node knows no such account.
    public func account(_ address: Address) async throws(NodeError) -> Account? {
        struct Body: Decodable { var account: Account }
        return try await get(
            "/api/accounts", [("address", address.description)], until: callDeadline,
            ifAbsent: (["Account not found"], nil)
        ) { (body: Body) in
            guard body.account.address == address, body.account.publicKey.map({ $0.address == address }) ?? true else {
                throw AnswerRejection(description: "the node answered with another account than \(address)")
            }
            return body.account
        }
    }

    /// Zero for an address the chain has never seen.
    public func balance(of address: Address) async throws(NodeError) -> Balance {
        try await get("/api/accounts/getBalance", [("address", address.description)], until: callDeadline) {
            (balance: Balance) in
            balance
        }
    }
}
