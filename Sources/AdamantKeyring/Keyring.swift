internal import AdamantBus
internal import AdamantCore
import Synchronization

/// The user's keyring, through the freedesktop Secret Service on the session bus
/// (gnome-keyring, KeePassXC, KWallet): secrets stored, found by attributes, read and deleted.
///
/// Secrets travel in the encrypted session (`dh-ietf1024-sha256-aes128-cbc-pkcs7`) whenever
/// the service offers it, and as they are only when it refuses that algorithm; `transport`
/// says which. Every call waits at most 5 s for its answer, and all of them together at most
/// the connection's `limit` when it has one (from the connection, and again after each
/// prompt); an unlock prompt waits at most `promptTimeout`. A hung, absent or slow service is
/// an error in seconds, never a hang.
public final class Keyring: Sendable {
    /// How long a prompt (an unlock, for one) is waited for when none is given.
    public static let promptTimeout: Duration = .seconds(60)

    let bus: SessionBus
    let session: SecretSession
    let promptTimeout: Duration
    /// How long its calls may take together; nil, each only its own 5 s.
    private let limit: Duration?
    private let deadline: Mutex<ContinuousClock.Instant?>

    /// How secrets travel in this connection's session.
    public var transport: KeyringTransport { session.transport }

    /// Connects to the session bus `environment` names (`DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`) and opens a session with its Secret Service.
    /// `within`: how long the connection and every call after it may take together.
    public static func connect(environment: [String: String], within limit: Duration? = nil) async throws(KeyringError)
        -> Keyring
    {
        let address: String
        do { address = try SessionBus.address(in: environment) } catch { throw .noSessionBus(error.description) }
        return try await connect(address: address, within: limit)
    }

    /// Connects to the session bus at `address` (a D-Bus address) and opens a session with
    /// its Secret Service; a prompt is waited for up to `promptTimeout`, and the calls, the
    /// connection's included, take at most `limit` together.
    public static func connect(
        address: String, promptTimeout: Duration = promptTimeout, within limit: Duration? = nil
    ) async throws(KeyringError) -> Keyring {
        let deadline = limit.map { ContinuousClock.now + $0 }
        // Before the bus: a missing library is said as such, not as a refused session.
        try DiffieHellman.loadLibrary()
        // sd-bus would skip what it cannot parse and then say "Connection refused".
        guard SessionBus.isAddress(address) else {
            throw .noSessionBus(
                "'\(address.prefix(200))' is not a D-Bus address (one such as unix:path=/run/user/1000/bus)")
        }
        let bus: SessionBus
        do { bus = try await SessionBus.connect(address: address) } catch { throw .noSessionBus(error.description) }
        let session = try await SecretSession.open(on: bus, within: try Self.left(until: deadline, of: limit))
        return Keyring(bus: bus, session: session, promptTimeout: promptTimeout, limit: limit, deadline: deadline)
    }

    init(
        bus: SessionBus, session: SecretSession, promptTimeout: Duration = promptTimeout, limit: Duration? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) {
        (self.bus, self.session, self.promptTimeout, self.limit) = (bus, session, promptTimeout, limit)
        self.deadline = Mutex(deadline ?? limit.map { ContinuousClock.now + $0 })
    }

    /// Gives its calls their whole `limit` again from now: for a new read by a program that
    /// keeps the connection (a watch looking whether the keyring was unlocked).
    public func restartDeadline() {
        guard let limit else { return }
        deadline.withLock { $0 = ContinuousClock.now + limit }
    }

    /// How long the next call may wait: its own 5 s, or what is left of the deadline if less.
    private static func left(until deadline: ContinuousClock.Instant?, of limit: Duration?) throws(KeyringError)
        -> Duration
    {
        guard let deadline, let limit else { return SessionBus.callTimeout }
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw outOfTime(limit) }
        return min(left, SessionBus.callTimeout)
    }

    private static func outOfTime(_ limit: Duration) -> KeyringError {
        .noSecretService(
            "it did not answer everything within \(Int((limit / .seconds(1)).rounded(.up))) s: the service is slow or hung"
        )
    }

    /// Calls `member` of the Secret Service (`SessionBus.secretCall`) within what is left of
    /// the deadline.
    func call<Answer: Sendable>(
        _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue], onItem: Bool = false,
        read: @escaping @Sendable (BusReader) throws(BusError) -> Answer
    ) async throws(KeyringError) -> Answer {
        let timeout = try Self.left(until: deadline.withLock { $0 }, of: limit)
        do {
            return try await bus.secretCall(
                path, interface, member, arguments, onItem: onItem, within: timeout, read: read)
        } catch .noSecretService(let detail) {
            // Given only what was left of the deadline, it ran out with the call.
            if let limit, timeout < SessionBus.callTimeout { throw Self.outOfTime(limit) }
            throw .noSecretService(detail)
        }
    }

    /// Stores `secret` in the default collection under `label`, replacing the item with the
    /// same `attributes` if there is one; unlocks the collection first if it must (a prompt).
    /// The caller keeps `secret`, and wipes it (`SecureMemory.zero`).
    @discardableResult
    public func store(secret: [UInt8], label: String, attributes: [String: String]) async throws(KeyringError)
        -> KeyringItem
    {
        let collection = try await defaultCollection()
        let properties: [String: BusValue] = [
            SecretService.item + ".Label": .string(label), SecretService.item + ".Attributes": .stringPairs(attributes),
        ]
        let arguments: [BusValue] = [.variants(properties), try session.encode(secret), .boolean(true)]
        let created: (item: String, prompt: String)
        do {
            created = try await create(in: collection, arguments)
        } catch .locked {
            try await unlock(paths: [collection])
            created = try await create(in: collection, arguments)
        }
        var item = created.item
        if created.prompt != SecretService.noPrompt {
            item = try await prompt(created.prompt, result: "o") { reader throws(BusError) in try reader.objectPath() }
        }
        guard item != SecretService.noPrompt else { throw .malformedAnswer("CreateItem named no item it created") }
        return KeyringItem(path: item, attributes: attributes, isLocked: false)
    }

    private func create(in collection: String, _ arguments: [BusValue]) async throws(KeyringError) -> (String, String) {
        try await call(collection, SecretService.collection, "CreateItem", arguments) {
            reader throws(BusError) in (try reader.objectPath(), try reader.objectPath())
        }
    }

    /// The items whose attributes include all of `attributes`, unlocked ones first, each in
    /// the service's order. With `readingAttributes`, each item's own attributes are read (a
    /// call each); without, an item's are taken to be `attributes`, all a caller that pinned
    /// what it looks for needs. An item deleted between the search and its read is passed over.
    public func search(attributes: [String: String], readingAttributes: Bool = true) async throws(KeyringError)
        -> [KeyringItem]
    {
        let (unlocked, locked) = try await call(
            SecretService.path, SecretService.interface, "SearchItems", [.stringPairs(attributes)]
        ) { reader throws(BusError) in (try reader.objectPaths(), try reader.objectPaths()) }
        var items: [KeyringItem] = []
        for (path, isLocked) in unlocked.map({ ($0, false) }) + locked.map({ ($0, true) }) {
            guard readingAttributes else {
                items.append(KeyringItem(path: path, attributes: attributes, isLocked: isLocked))
                continue
            }
            do {
                items.append(
                    KeyringItem(path: path, attributes: try await self.attributes(of: path), isLocked: isLocked))
            } catch .noSuchItem {
                continue
            }
        }
        return items
    }

    private func attributes(of item: String) async throws(KeyringError) -> [String: String] {
        try await call(
            item, "org.freedesktop.DBus.Properties", "Get", [.string(SecretService.item), .string("Attributes")],
            onItem: true
        ) { reader throws(BusError) in
            try reader.variant("a{ss}", "an item's attributes") { reader throws(BusError) in try reader.stringPairs() }
        }
    }

    /// The secret of `item`; `locked` if it is locked (`unlock` it first). The caller wipes
    /// what it gets (`SecureMemory.zero`).
    public func secret(of item: KeyringItem) async throws(KeyringError) -> [UInt8] {
        let secrets = try await call(
            SecretService.path, SecretService.interface, "GetSecrets",
            [.objectPaths([item.path]), .objectPath(session.path)]
        ) { reader throws(BusError) in
            try reader.dictionary("o(oayays)", "the secrets") { reader throws(BusError) in
                let path = try reader.objectPath()
                let secret = try reader.structure("oayays", "a secret") { reader throws(BusError) in
                    let read = (
                        session: try reader.objectPath(), parameters: try reader.bytes(), value: try reader.bytes()
                    )
                    _ = try reader.string()  // the content type: the bytes are what they are
                    return read
                }
                return (path, secret)
            }
        }
        // The service leaves out what is locked, and what is not there.
        guard let (_, secret) = secrets.first(where: { $0.0 == item.path }) else {
            guard try await isLocked(item.path) else {
                throw .malformedAnswer("GetSecrets left out \(item.path), which is there and unlocked")
            }
            throw .locked("the item \(item.path) is locked")
        }
        return try session.decode(session: secret.session, parameters: secret.parameters, value: secret.value)
    }

    private func isLocked(_ item: String) async throws(KeyringError) -> Bool {
        try await call(
            item, "org.freedesktop.DBus.Properties", "Get", [.string(SecretService.item), .string("Locked")],
            onItem: true
        ) { reader throws(BusError) in
            try reader.variant("b", "whether an item is locked") { reader throws(BusError) in try reader.boolean() }
        }
    }

    /// Deletes `item` (after a prompt, if the service asks for one).
    public func delete(_ item: KeyringItem) async throws(KeyringError) {
        let prompt = try await call(item.path, SecretService.item, "Delete", [], onItem: true) {
            reader throws(BusError) in
            try reader.objectPath()
        }
        if prompt != SecretService.noPrompt {
            _ = try await self.prompt(prompt, result: nil) { _ throws(BusError) in () }
        }
    }

    /// The default collection's path: where new items go.
    func defaultCollection() async throws(KeyringError) -> String {
        let path = try await call(
            SecretService.path, SecretService.interface, "ReadAlias", [.string("default")]
        ) {
            reader throws(BusError) in try reader.objectPath()
        }
        guard path != SecretService.noPrompt else {
            throw .refused("the keyring has no default collection: create one in the desktop's keyring manager")
        }
        return path
    }
}
