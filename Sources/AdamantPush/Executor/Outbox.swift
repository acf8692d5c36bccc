public import AdamantCore
public import AdamantNodes
import Synchronization

/// The registration outbox of one account with one push service: the user's intents, kept
/// durably, and the work that makes the chain match the newest of each.
///
/// `register` / `unregister` return once the intent is committed to disk; `flush` (or
/// `waitUntilSettled`) does the network work. Nothing here prints; it logs through `LogSink`.
public final class Outbox: Sendable {
    /// The outbox's timings and bounds. The defaults are those of `adm-push`.
    public struct Configuration: Sendable {
        /// When the scheduler sends, waits, retries and gives up.
        public var policy = Planner.Policy()
        /// Blocks after a send with no trace of an attempt before it counts as absent.
        public var absentAfterBlocks: Int64 = 3
        /// How long a process may hold a key while it sends.
        public var leaseMillis: Int64 = 60_000
        /// Between passes while waiting for a block.
        public var pollInterval: Duration = .milliseconds(500)
        /// Pages of own signals read per sync at most (100 each).
        public var maxSyncPages = 10_000
        /// Draws each retry's jitter; a test passes a seeded one to know the backoffs.
        public var jitter: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
        /// Called at the points of a send where a crash matters most; crash tests kill the
        /// process there.
        public var checkpoint: (@Sendable (SendCheckpoint) -> Void)?

        /// The defaults.
        public init() {}
    }

    /// The moments of a send that the crash tests aim at.
    public enum SendCheckpoint: String, Sendable, CaseIterable {
        /// Signed, not yet recorded.
        case beforeRecord = "before-record"
        /// Recorded, not yet sent.
        case afterRecord = "after-record"
        /// Sent and answered, the answer not yet stored.
        case afterBroadcast = "after-broadcast"
    }

    let store: OutboxStore
    let scope: StoreScope
    let keyPair: KeyPair
    let service: NotificationService
    /// The nodes the outbox reads the chain from and sends through.
    public let chain: any SignalChain
    let configuration: Configuration
    let planner: Planner
    let fold: ChainFold
    let chatKey: ChatKey
    let wallClock: any WallClock
    let jitter: Mutex<any RandomNumberGenerator & Sendable>
    let log: any LogSink
    /// This process's name in leases.
    let holder = LeaseHolder.make()

    /// The account whose signals this outbox sends.
    public var account: Address { keyPair.address }

    /// Opens the outbox in `home` (created 0700 if missing) for `keyPair` and `service`.
    public convenience init(
        home: String, keyPair: KeyPair, service: NotificationService, chain: any SignalChain,
        configuration: Configuration = Configuration(), wallClock: any WallClock = SystemWallClock(),
        log: any LogSink = SilentLog()
    ) throws(OutboxError) {
        try self.init(
            store: OutboxStore(directory: home), keyPair: keyPair, service: service, chain: chain,
            configuration: configuration, wallClock: wallClock, log: log)
    }

    /// The same for keys perhaps still being derived: the store opens meanwhile.
    public convenience init(
        home: String, keys: AccountKeys, service: NotificationService, chain: any SignalChain,
        configuration: Configuration = Configuration(), wallClock: any WallClock = SystemWallClock(),
        log: any LogSink = SilentLog()
    ) async throws(OutboxError) {
        async let opened = Result { () throws(OutboxError) in try OutboxStore(directory: home) }
        let keyPair = await keys.keyPair
        try self.init(
            store: await opened.get(), keyPair: keyPair, service: service, chain: chain,
            configuration: configuration, wallClock: wallClock, log: log)
    }

    private init(
        store: OutboxStore, keyPair: KeyPair, service: NotificationService, chain: any SignalChain,
        configuration: Configuration, wallClock: any WallClock, log: any LogSink
    ) throws(OutboxError) {
        self.store = store
        scope = StoreScope(
            account: keyPair.address, service: service.address,
            key: LocalSealingKey(keyPair: keyPair, purpose: "outbox v1"))
        do { chatKey = try ChatKey(secretKey: keyPair.secretKey, partner: service.publicKey) } catch {
            throw .unusableServiceKey
        }
        self.keyPair = keyPair
        self.service = service
        self.chain = chain
        self.configuration = configuration
        self.planner = Planner(policy: configuration.policy)
        self.fold = ChainFold(gap: configuration.policy.gap)
        self.wallClock = wallClock
        self.jitter = Mutex(configuration.jitter)
        self.log = log
    }

    // MARK: Intents

    /// Durably records the wish that `token` be registered with `provider`. Nothing is sent yet.
    public func register(token: String, provider: PushProvider, deviceId: String? = nil) async throws(OutboxError)
        -> Intent
    {
        let signal = try Self.signal(token: token, provider: provider, action: .add, deviceId: deviceId)
        return try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis())
    }

    /// Durably records the wish that `token` be unregistered. The provider of the remove is the
    /// one the token was last registered with (the service ignores it, but it is part of the
    /// signal), else the one its shape says.
    public func unregister(token: String) async throws(OutboxError) -> Intent {
        let provider = try await knownProvider(of: token) ?? (Hex.decode(token) != nil ? .apns : .fcm)
        let signal = try Self.signal(token: token, provider: provider, action: .remove)
        return try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis())
    }

    /// A remove for every token this account ever registered with the service that may still
    /// be registered, found from the chain's history alone (so it works with a fresh home),
    /// and for any token with a pending add here. A long history is read page by page:
    /// `progress` hears how many of the account's transactions to the service were read so far.
    public func unregisterAll(progress: (@Sendable (Int) -> Void)? = nil) async throws(OutboxError) -> [Intent] {
        let synced = try await syncChain(progress: progress)
        var tokens: [String: PushProvider] = [:]
        for (token, state) in fold.states(of: synced.signals) where !state.isUnregistered {
            tokens[token] = state.last?.signal.provider
        }
        for group in try await store.intents(scope: scope, includeSettled: false) {
            guard let newest = group.last, newest.action == .add else { continue }
            tokens[newest.signal.token] = newest.signal.provider
        }
        var intents: [Intent] = []
        for (token, provider) in tokens.sorted(by: { $0.key < $1.key }) {
            let signal = try Self.signal(token: token, provider: provider, action: .remove)
            intents.append(try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis()))
        }
        return intents
    }

    private static func signal(token: String, provider: PushProvider, action: PushAction, deviceId: String? = nil)
        throws(OutboxError) -> PushSignal
    {
        do { return try PushSignal(token: token, provider: provider, action: action, deviceId: deviceId) } catch {
            throw .invalidSignal(error)
        }
    }

    private func knownProvider(of token: String) async throws(OutboxError) -> PushProvider? {
        let tag = scope.tag(token)
        for group in try await store.intents(scope: scope, includeSettled: true)
        where scope.tag(group[0].signal.token) == tag {
            return group.last?.signal.provider
        }
        let kept = try await store.ownSignals(scope: scope).filter { $0.signal.token == token }
        return fold.state(of: kept.sorted(by: OwnSignal.inChainOrder)).last?.signal.provider
    }
}
