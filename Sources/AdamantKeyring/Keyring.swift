internal import AdamantBus
internal import AdamantCore

/// The user's keyring, through the freedesktop Secret Service on the session bus
/// (gnome-keyring, KeePassXC, KWallet): secrets stored, found by attributes, read and deleted.
///
/// Secrets travel in the encrypted session (`dh-ietf1024-sha256-aes128-cbc-pkcs7`) whenever
/// the service offers it, and as they are only when it refuses that algorithm; `transport`
/// says which. Every call waits at most 5 s for its answer, and an unlock prompt at most
/// `promptTimeout`, so a hung or absent service is an error in seconds, never a hang.
public final class Keyring: Sendable {
    /// How long a prompt (an unlock, for one) is waited for when none is given.
    public static let promptTimeout: Duration = .seconds(60)

    let bus: SessionBus
    let session: SecretSession
    let promptTimeout: Duration

    /// How secrets travel in this connection's session.
    public var transport: KeyringTransport { session.transport }

    /// Connects to the session bus `environment` names (`DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`) and opens a session with its Secret Service.
    public static func connect(environment: [String: String]) async throws(KeyringError) -> Keyring {
        let address: String
        do { address = try SessionBus.address(in: environment) } catch { throw .noSessionBus(error.description) }
        return try await connect(address: address)
    }

    /// Connects to the session bus at `address` (a D-Bus address) and opens a session with
    /// its Secret Service; a prompt is waited for up to `promptTimeout`.
    public static func connect(address: String, promptTimeout: Duration = promptTimeout) async throws(KeyringError)
        -> Keyring
    {
        // Before the bus: a missing library is said as such, not as a refused session.
        try DiffieHellman.loadLibrary()
        // sd-bus would skip what it cannot parse and then say "Connection refused".
        guard SessionBus.isAddress(address) else {
            throw .noSessionBus(
                "'\(address.prefix(200))' is not a D-Bus address (one such as unix:path=/run/user/1000/bus)")
        }
        let bus: SessionBus
        do { bus = try await SessionBus.connect(address: address) } catch { throw .noSessionBus(error.description) }
        return Keyring(bus: bus, session: try await SecretSession.open(on: bus), promptTimeout: promptTimeout)
    }

    init(bus: SessionBus, session: SecretSession, promptTimeout: Duration = promptTimeout) {
        (self.bus, self.session, self.promptTimeout) = (bus, session, promptTimeout)
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
        try await bus.secretCall(collection, SecretService.collection, "CreateItem", arguments) {
            reader throws(BusError) in (try reader.objectPath(), try reader.objectPath())
        }
    }

    /// The items whose attributes include all of `attributes`, locked ones too.
    public func search(attributes: [String: String]) async throws(KeyringError) -> [KeyringItem] {
        let (unlocked, locked) = try await bus.secretCall(
            SecretService.path, SecretService.interface, "SearchItems", [.stringPairs(attributes)]
        ) { reader throws(BusError) in (try reader.objectPaths(), try reader.objectPaths()) }
        var items: [KeyringItem] = []
        for (path, isLocked) in unlocked.map({ ($0, false) }) + locked.map({ ($0, true) }) {
            items.append(KeyringItem(path: path, attributes: try await self.attributes(of: path), isLocked: isLocked))
        }
        return items
    }

    private func attributes(of item: String) async throws(KeyringError) -> [String: String] {
        try await bus.secretCall(
            item, "org.freedesktop.DBus.Properties", "Get", [.string(SecretService.item), .string("Attributes")],
            onItem: true
        ) { reader throws(BusError) in
            try reader.variant("a{ss}", "an item's attributes") { reader throws(BusError) in try reader.stringPairs() }
        }
    }

    /// The secret of `item`; `locked` if it is locked (`unlock` it first). The caller wipes
    /// what it gets (`SecureMemory.zero`).
    public func secret(of item: KeyringItem) async throws(KeyringError) -> [UInt8] {
        let secrets = try await bus.secretCall(
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
        try await bus.secretCall(
            item, "org.freedesktop.DBus.Properties", "Get", [.string(SecretService.item), .string("Locked")],
            onItem: true
        ) { reader throws(BusError) in
            try reader.variant("b", "whether an item is locked") { reader throws(BusError) in try reader.boolean() }
        }
    }

    /// Deletes `item` (after a prompt, if the service asks for one).
    public func delete(_ item: KeyringItem) async throws(KeyringError) {
        let prompt = try await bus.secretCall(item.path, SecretService.item, "Delete", [], onItem: true) {
            reader throws(BusError) in
            try reader.objectPath()
        }
        if prompt != SecretService.noPrompt {
            _ = try await self.prompt(prompt, result: nil) { _ throws(BusError) in () }
        }
    }

    /// The default collection's path: where new items go.
    func defaultCollection() async throws(KeyringError) -> String {
        let path = try await bus.secretCall(
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
