public import AdamantCore
public import AdamantNodes
import Synchronization

/// Partners' display names for notification titles: the newest `contact_list` of the account,
/// asked of the nodes at most every `maximumAge` and kept in the home directory as the node
/// gave it, still encrypted (a file per account). A node that cannot be asked in time, or a
/// list that cannot be read, means the partner's address is the title: a name is never worth
/// a late notification.
public final class AddressBookSource: Sendable {
    /// How old the kept list may be before the nodes are asked for a newer one.
    public static let maximumAge: Duration = .seconds(300)
    /// The longest a lookup may take out of the fetch's deadline.
    public static let lookupBudget: Duration = .seconds(3)
    static let maximumFileSize = 64 * 1024

    private let keys: AccountKeys
    private let client: NodeClient
    private let home: String?
    private let wallClock: any WallClock
    /// One load per process, shared by every lookup (and started early by `prefetch`).
    private let loading = Mutex<Task<AddressBook, Never>?>(nil)

    /// The book of the account `keys` will give, read through `client` and kept in `home` (nil:
    /// nothing kept, the nodes are asked every time). `wallClock` ages the kept copy.
    public init(keys: AccountKeys, client: NodeClient, home: String?, wallClock: any WallClock) {
        self.keys = keys
        self.client = client
        self.home = home
        self.wallClock = wallClock
    }

    /// The same for keys already derived.
    public convenience init(
        keyPair: KeyPair, client: NodeClient, home: String?, wallClock: any WallClock
    ) {
        self.init(keys: AccountKeys(keyPair), client: client, home: home, wallClock: wallClock)
    }

    /// The name `address` has in the account's address book, or nil, within `budget` (on the
    /// client's pool's clock).
    public func name(of address: Address, within budget: Duration) async -> String? {
        await load(within: budget).value.name(of: address)
    }

    /// Starts loading the address book now, alongside the fetch of the transaction.
    public func prefetch(within budget: Duration) { _ = load(within: budget) }

    private func load(within budget: Duration) -> Task<AddressBook, Never> {
        let deadline = client.pool.clock.now + budget
        return loading.withLock { task in
            if let task { return task }
            let started = Task { await self.addressBook(until: deadline) }
            task = started
            return started
        }
    }

    private func addressBook(until deadline: AnyClock.Instant) async -> AddressBook {
        let keyPair = await keys.keyPair
        let file = home.map { $0 + "/contacts-" + keyPair.address.description + ".json" }
        let cached = readCache(file)
        if let cached, Self.isFresh(cached.fetchedAt, now: wallClock.unixMillis()) {
            return book(from: cached.transaction, keyPair)
        }
        var nodes = client
        nodes.deadline = min(Self.lookupBudget, max(.zero, client.pool.clock.now.duration(to: deadline)))
        guard let newest = try? await nodes.states(of: keyPair.address, key: AddressBook.key, limit: 1) else {
            return cached.map { book(from: $0.transaction, keyPair) } ?? AddressBook()
        }
        writeCache(Cached(fetchedAt: wallClock.unixMillis(), transaction: newest.first), to: file)
        return book(from: newest.first, keyPair)
    }

    private func book(from transaction: Transaction?, _ keyPair: KeyPair) -> AddressBook {
        guard let transaction else { return AddressBook() }
        return (try? AddressBook(decrypting: transaction, keyPair: keyPair)) ?? AddressBook()
    }

    static func isFresh(_ fetchedAt: Int64, now: Int64) -> Bool {
        let age = now &- fetchedAt
        return age >= 0 && Duration.milliseconds(age) <= maximumAge
    }

    /// The node's answer as it came (nil: the account has no list), and when.
    struct Cached: Encodable {
        var fetchedAt: Int64
        var transaction: Transaction?
    }

    private func readCache(_ file: String?) -> Cached? {
        guard let file, let data = try? SmallFile.read(atPath: file, limit: Self.maximumFileSize) else { return nil }
        return try? JSONReader.read(data) { reader throws(JSONReadError) in try Cached(json: &reader) }
    }

    private func writeCache(_ cached: Cached, to file: String?) {
        guard let file, let data = try? JSONCoding.encode(cached) else { return }
        SmallFile.replace(atPath: file, with: data)
    }
}

extension AddressBookSource.Cached {
    /// What `writeCache` wrote: no `transaction`, or null, when the account has no list.
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var fetchedAt: Int64?
        var transaction: Transaction?
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            case "fetchedAt": fetchedAt = try reader.readInteger()
            case "transaction": transaction = try reader.readNull() ? nil : Transaction(json: &reader)
            default: try reader.skipValue()
            }
        }
        guard let fetchedAt else { throw reader.missing("fetchedAt") }
        self.init(fetchedAt: fetchedAt, transaction: transaction)
    }
}
