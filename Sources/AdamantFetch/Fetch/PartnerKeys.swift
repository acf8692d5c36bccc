public import AdamantCore
import AdamantNodes
public import AdamantStore
import Synchronization

/// Where partners' public keys are kept between runs. The key an address signs with never
/// changes, so an entry never goes stale.
public protocol PublicKeyCache: Sendable {
    /// The public key kept for `address`, if any.
    func knownKey(of address: Address) async -> PublicKey?
    /// Keeps `key` as `address`'s; it has been checked to hash to that address.
    func keep(_ key: PublicKey, of address: Address) async
}

/// Partners' keys for as long as the process lives: the default, for a single fetch.
public final class MemoryPublicKeyCache: PublicKeyCache {
    private let keys = Mutex<[Address: PublicKey]>([:])
    /// An empty cache.
    public init() {}
    /// The key kept for `address`, if any.
    public func knownKey(of address: Address) async -> PublicKey? { keys.withLock { $0[address] } }
    /// Keeps `key` as `address`'s.
    public func keep(_ key: PublicKey, of address: Address) async { keys.withLock { $0[address] = key } }
}

/// One `ChatKey` per partner (computing it is most of a decryption's cost), and the partner's
/// public key found for messages this account sent: list answers carry no
/// `recipientPublicKey` for confirmed rows, so it is asked for and cached.
final class PartnerKeys: Sendable {
    private let keys: AccountKeys
    private let cache: any PublicKeyCache
    private let chatKeys = Mutex<[PublicKey: ChatKey]>([:])

    init(keys: AccountKeys, cache: any PublicKeyCache) {
        self.keys = keys
        self.cache = cache
    }

    func chatKey(for transaction: Transaction, incoming: Bool, client: NodeClient) async throws(FetchFailure.Unreadable)
        -> ChatKey
    {
        let keyPair = await keys.keyPair
        let partnerKey =
            incoming
            ? transaction.senderPublicKey : try await recipientKey(of: transaction, as: keyPair, client: client)
        if let known = chatKeys.withLock({ $0[partnerKey] }) { return known }
        let key: ChatKey
        do { key = try ChatKey(secretKey: keyPair.secretKey, partner: partnerKey) } catch { throw .crypto(error) }
        chatKeys.withLock { $0[partnerKey] = key }
        return key
    }

    /// The recipient's key, checked to hash to the recipient (a node could send any key).
    private func recipientKey(of transaction: Transaction, as keyPair: KeyPair, client: NodeClient)
        async throws(FetchFailure.Unreadable) -> PublicKey
    {
        guard let recipient = transaction.recipientId else { throw .noRecipient }
        if recipient == keyPair.address { return keyPair.publicKey }
        if let given = transaction.recipientPublicKey, given.address == recipient { return given }
        if let cached = await cache.knownKey(of: recipient) { return cached }
        let answer: PublicKey?
        do { answer = try await client.publicKey(of: recipient) } catch { throw .nodes(error) }
        guard let fetched = answer else { throw .unknownKey(recipient) }
        await cache.keep(fetched, of: recipient)
        return fetched
    }
}

/// The home directory's log keeps partners' keys between runs; a failing store only means
/// asking a node again.
extension NotificationLog: PublicKeyCache {
    /// The key the log keeps for `address`; nil too when the log cannot be read.
    public func knownKey(of address: Address) async -> PublicKey? { try? await publicKey(of: address) }
    /// Keeps `key` as `address`'s in the log; a failed write is ignored.
    public func keep(_ key: PublicKey, of address: Address) async { try? await remember(key, of: address) }
}
