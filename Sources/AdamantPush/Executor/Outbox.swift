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
            account: keyPair.address, service: service, key: LocalSealingKey(keyPair: keyPair, purpose: "outbox v1"))
        do { chatKey = try ChatKey(secretKey: keyPair.secretKey, partner: service.publicKey) } catch {
            throw .unusableServiceKey
        }
        self.keyPair = keyPair
        self.service = service
        self.chain = chain
        self.configuration = configuration
        self.planner = Planner(policy: configuration.policy, kind: service.kind)
        self.fold = ChainFold(gap: configuration.policy.gap, kind: service.kind)
        self.wallClock = wallClock
        self.jitter = Mutex(configuration.jitter)
        self.log = log
    }

    // MARK: Intents

    /// What `signal`'s registration is keyed by here: its token, or its device for adamant-ns.
    public func key(of signal: PushSignal) -> String { service.kind.key(of: signal) }

    /// This home's device id for adamant-ns: 128 random bits, made on first use and kept sealed.
    public func deviceID() async throws(OutboxError) -> String {
        try await store.deviceID(scope: scope) { PushSignal.randomDeviceID() }
    }

    /// Durably records the wish that `token` be registered with `provider`. Nothing is sent yet.
    /// For adamant-ns the registration is this home's device (`deviceID()`) unless `deviceId`
    /// names another.
    public func register(token: String, provider: PushProvider, deviceId: String? = nil) async throws(OutboxError)
        -> Intent
    {
        var device = deviceId
        if service.kind == .ns, device == nil { device = try await deviceID() }
        let signal = try checked(token: token, provider: provider, action: .add, deviceId: device)
        return try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis())
    }

    /// Durably records the wish that `token` be unregistered. The provider of the remove is the
    /// one the token was last registered with (the service ignores it, but it is part of the
    /// signal), else the one its shape says.
    ///
    /// For adamant-ns, which deletes a device whatever token its remove names, the remove is of
    /// the device (this home's, or `deviceId`) and only while `token` is its token: once the
    /// device holds a newer one, nothing is recorded (`OutboxError.tokenReplaced`).
    public func unregister(token: String, deviceId: String? = nil) async throws(OutboxError) -> Intent {
        guard service.kind == .ns else {
            let provider = try await knownProvider(of: token) ?? (Hex.decode(token) != nil ? .apns : .fcm)
            let signal = try checked(token: token, provider: provider, action: .remove, deviceId: nil)
            return try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis())
        }
        let device: String
        if let deviceId { device = deviceId } else { device = try await deviceID() }
        let current = try await latest(ofKey: device)
        if let current, current.action == .add, current.token != token { throw .tokenReplaced }
        let provider = current?.provider ?? (Hex.decode(token) != nil ? .apns : .fcm)
        let signal = try checked(token: token, provider: provider, action: .remove, deviceId: device)
        return try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis())
    }

    /// A remove for every token this account ever registered with the service that may still
    /// be registered, found from the chain's history alone (so it works with a fresh home),
    /// and for any token with a pending add here. A long history is read page by page:
    /// `progress` hears how many of the account's transactions to the service were read so far.
    public func unregisterAll(progress: (@Sendable (Int) -> Void)? = nil) async throws(OutboxError) -> [Intent] {
        let synced = try await syncChain(progress: progress)
        // A registration's key (token or device) and the signal whose token and provider its
        // remove names.
        var registered: [String: PushSignal] = [:]
        for (key, state) in fold.states(of: synced.signals) where !state.isUnregistered {
            registered[key] = state.last?.signal
        }
        for group in try await store.intents(scope: scope, includeSettled: false) {
            guard let newest = group.last, newest.action == .add else { continue }
            registered[key(of: newest.signal)] = newest.signal
        }
        var intents: [Intent] = []
        for (_, last) in registered.sorted(by: { $0.key < $1.key }) {
            let signal = try checked(
                token: last.token, provider: last.provider, action: .remove,
                deviceId: service.kind == .ns ? last.deviceId : nil)
            intents.append(try await store.addIntent(signal, scope: scope, now: wallClock.unixMillis()))
        }
        return intents
    }

    /// A signal this service can carry, or `invalidSignal`.
    private func checked(token: String, provider: PushProvider, action: PushAction, deviceId: String?)
        throws(OutboxError) -> PushSignal
    {
        do {
            let signal = try PushSignal(token: token, provider: provider, action: action, deviceId: deviceId)
            try service.check(signal)
            return signal
        } catch {
            throw .invalidSignal(error)
        }
    }

    private func knownProvider(of token: String) async throws(OutboxError) -> PushProvider? {
        try await latest(ofKey: token)?.provider
    }

    /// The newest word on a key: its newest intent here, else its last signal on chain as kept.
    private func latest(ofKey key: String) async throws(OutboxError) -> PushSignal? {
        let tag = scope.tag(key)
        for group in try await store.intents(scope: scope, includeSettled: true)
        where scope.tag(of: group[0].signal) == tag {
            return group.last?.signal
        }
        let kept = try await store.ownSignals(scope: scope).filter { self.key(of: $0.signal) == key }
        return fold.state(of: kept.sorted(by: OwnSignal.inChainOrder)).last?.signal
    }
}
