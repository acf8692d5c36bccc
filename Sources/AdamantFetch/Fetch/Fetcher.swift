public import AdamantCore
public import AdamantNodes

/// Finds the transaction behind a push on the nodes, verifies it, decrypts it and renders it,
/// all within one deadline. Never trusts a node: every answer is verified (a tampered one sets
/// that node aside and the next is asked), and a transaction that is not this account's is
/// never decrypted.
public struct Fetcher: Sendable {
    /// The time a fetch may take, and how often it asks again for a transaction not there yet.
    public struct Configuration: Sendable {
        /// The whole fetch ends by then (the iOS extension's budget is about 30 s).
        public var deadline: Duration = .seconds(25)
        /// How long to wait before asking again for a transaction no node has yet: a push can
        /// arrive before the node has the block. Doubles up to `maximumPollInterval`.
        public var pollInterval: Duration = .milliseconds(250)
        /// The longest pause between two rounds of asking.
        public var maximumPollInterval: Duration = .seconds(2)
        /// The words notifications are rendered in.
        public var wording = Wording.english
        /// The defaults: 25 s, asking again after 250 ms, then less often, up to every 2 s,
        /// in English.
        public init() {}
    }

    /// The account's keys, perhaps still being derived when a fetch starts.
    public let keys: AccountKeys
    /// The user's nodes. Each request is bounded by what is left of the fetch's deadline.
    public let client: NodeClient
    /// The deadline and polling of every fetch.
    public let configuration: Configuration
    let partners: PartnerKeys
    /// The title for a partner: a display name, or nil for the address. Must give up within
    /// the time it is handed.
    let name: @Sendable (Address, Duration) async -> String?

    /// A fetcher for the account `keys` gives. `publicKeys` keeps partners' keys between runs (for
    /// messages this account sent, whose recipient's key a node may not report); `name` titles a
    /// notification with the partner's name, and must give up within the time it is handed. Every
    /// deadline and pause is measured on the client's pool's clock.
    public init(
        keys: AccountKeys, client: NodeClient, configuration: Configuration = Configuration(),
        publicKeys: any PublicKeyCache = MemoryPublicKeyCache(),
        name: @escaping @Sendable (Address, Duration) async -> String? = { _, _ in nil }
    ) {
        self.keys = keys
        self.client = client
        self.configuration = configuration
        self.partners = PartnerKeys(keys: keys, cache: publicKeys)
        self.name = name
    }

    /// The same for keys already derived.
    public init(
        keyPair: KeyPair, client: NodeClient, configuration: Configuration = Configuration(),
        publicKeys: any PublicKeyCache = MemoryPublicKeyCache(),
        name: @escaping @Sendable (Address, Duration) async -> String? = { _, _ in nil }
    ) {
        self.init(
            keys: AccountKeys(keyPair), client: client, configuration: configuration, publicKeys: publicKeys, name: name
        )
    }

    /// The push's transaction as a notification. Ends by `configuration.deadline`.
    ///
    /// A push for another account than this one's (``PushPayload/recipient``) is not fetched.
    /// One that carries its transaction is for that transaction's recipient, once it verifies:
    /// when this account is neither its sender nor its recipient, the push is another
    /// account's, as adamant-ns pushes name no account.
    public func fetch(_ push: PushPayload) async -> FetchResult {
        let deadline = clock.now + configuration.deadline
        // Looked for while the keys may still be being derived; a push for another account
        // ends the search (leaving this scope cancels it).
        async let located = locate(push, until: deadline)
        let account = await keys.keyPair.address
        if let pushedFor = push.recipient, pushedFor != account {
            return fallback(push.id, .wrongAccount(pushedFor: pushedFor, account: account))
        }
        switch await located {
        case .success(let transaction):
            let sender = transaction.senderPublicKey.address
            if push.transaction != nil, sender != account, let pushedFor = transaction.recipientId, pushedFor != account
            {
                return fallback(push.id, .wrongAccount(pushedFor: pushedFor, account: account), type: transaction)
            }
            return await show(transaction, id: push.id, sender: sender, account: account, until: deadline)
        case .failure(let fallback): return fallback.result
        }
    }

    /// The push's transaction, carried and checked, or found on the nodes; or the fallback.
    private func locate(_ push: PushPayload, until deadline: AnyClock.Instant) async -> Result<Transaction, Fallback> {
        if let carried = push.transaction {
            do { try Self.check(carried, is: push.id) } catch {
                return .failure(Fallback(result: fallback(push.id, .unverifiable(error), type: carried)))
            }
            return .success(carried)
        }
        return await find(push.id, until: deadline).mapError { Fallback(result: fallback(push.id, $0)) }
    }

    /// A fetch that ended in its fallback notification, as a `Result`'s failure.
    private struct Fallback: Error {
        let result: FetchResult
    }

    /// A verified transaction, ours, as a notification, within `budget`. Throws `unverifiable`
    /// for one that has no id and whose id cannot be computed: no notification can name it.
    public func show(_ transaction: Transaction, within budget: Duration) async throws(FetchFailure) -> FetchResult {
        let deadline = clock.now + budget
        let id: TransactionID
        if let given = transaction.id {
            id = given
        } else {
            do { id = try transaction.computedID() } catch {
                throw .unverifiable(.noID(error))
            }
        }
        return await show(
            transaction, id: id, sender: transaction.senderPublicKey.address, account: await keys.keyPair.address,
            until: deadline)
    }

    /// The same for the transaction `id` (a push or a watch's listing found it by it, and checked
    /// it), with the addresses of its sender key and of this account already derived (a
    /// SHA-256 each), as a watch has them.
    func show(
        _ transaction: Transaction, id: TransactionID, sender: Address, account me: Address,
        until deadline: AnyClock.Instant
    ) async -> FetchResult {
        let incoming = sender != me
        guard !incoming || transaction.recipientId == me else {
            return fallback(id, .notOurs(sender: sender, recipient: transaction.recipientId), type: transaction)
        }
        let partner = incoming ? sender : (transaction.recipientId ?? me)
        let title = await name(partner, max(.zero, clock.now.duration(to: deadline))) ?? partner.description
        // Only a chat's asset is signed: one a node hangs on a transfer is no message.
        let chat = transaction.type == .chat ? transaction.chat : nil
        var plaintext: String?
        if let chat {
            do throws(FetchFailure.Unreadable) {
                let key = try await partners.chatKey(
                    for: transaction, incoming: incoming, client: client(until: deadline))
                do { plaintext = try key.open(chat) } catch { throw .crypto(error) }
            } catch {
                var result = fallback(id, .unreadable(error), type: transaction, title: title)
                result.transaction = transaction
                result.thread = partner
                return result
            }
        }
        let content = MessageContent(
            type: transaction.type, chatType: chat?.type, amount: transaction.amount, plaintext: plaintext,
            incoming: incoming)
        return FetchResult(
            id: id, transaction: transaction,
            notification: NotificationRenderer.render(content, title: title, wording: configuration.wording),
            text: plaintext, thread: partner)
    }

    /// The chain first (where a pushed transaction almost always is), then the pools, asked
    /// again with backoff until the deadline.
    func find(_ id: TransactionID, until deadline: AnyClock.Instant) async -> Result<Transaction, FetchFailure> {
        var pause = configuration.pollInterval
        var lastError: NodeError?
        while true {
            do {
                let nodes = client(until: deadline)
                if let found = try await nodes.transaction(id) { return .success(found) }
                if let found = try await nodes.unconfirmedTransaction(id) { return .success(found) }
                if let found = try await nodes.queuedTransaction(id) { return .success(found) }
            } catch let error {
                switch error {
                case .noUsableNode, .proxyFailed: return .failure(.noUsableNode(error))
                case _ where error.everyAnswerFailedVerification: return .failure(.unverifiable(.nodes(error)))
                case .cancelled: return .failure(.cancelled)
                default: lastError = error
                }
            }
            let now = clock.now
            guard now + pause < deadline else {
                return .failure(.notFound(lastError))
            }
            try? await clock.sleep(until: now + pause)
            if Task.isCancelled { return .failure(.cancelled) }
            pause = min(pause * 2, configuration.maximumPollInterval)
        }
    }

    /// The node client with what is left of the deadline as its own.
    func client(until deadline: AnyClock.Instant) -> NodeClient {
        var client = self.client
        client.deadline = max(.zero, clock.now.duration(to: deadline))
        return client
    }

    /// The pool's clock: a fetch's deadline and pauses are the pool's, so one test clock
    /// steps through both.
    var clock: AnyClock { client.pool.clock }

    /// A carried transaction passes the checks a fetched one does: signature, sender, and the
    /// id the push names.
    static func check(_ transaction: Transaction, is id: TransactionID) throws(FetchFailure.Unverifiable) {
        let computed: TransactionID
        do { computed = try transaction.verify() } catch { throw .transaction(error) }
        guard computed == id else { throw .otherID(computed: computed, named: id) }
    }

    func fallback(
        _ id: TransactionID, _ failure: FetchFailure, type transaction: Transaction? = nil, title: String? = nil
    ) -> FetchResult {
        let notification = NotificationRenderer.fallback(
            type: transaction?.type, amount: transaction?.amount ?? 0, title: title ?? "ADAMANT",
            wording: configuration.wording)
        return FetchResult(id: id, transaction: nil, notification: notification, failure: failure)
    }
}
