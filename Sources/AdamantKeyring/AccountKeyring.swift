public import AdamantCore

/// ADAMANT accounts' passphrases in the desktop's keyring: one item per account in the default
/// collection, labelled "ADAMANT account U…" and found by the attributes `address` and
/// `xdg:schema` (`schema`), as libsecret's tools and the desktop's keyring manager show them.
///
/// An account may have several items (another tool stored one too, or an old login was kept
/// beside a new one): they are read in the service's order, unlocked ones first, and the first
/// that holds the account's passphrase is the account's. `store` leaves one; `remove` takes
/// them all.
public struct AccountKeyring: Sendable {
    /// The schema name its items carry, which no other program's items do.
    public static let schema = "im.adamant.Account"

    /// How long a command's whole read of the keyring may take (the connection, the search,
    /// the secret), its prompts apart: a slow service is an error in seconds, not minutes.
    public static let readLimit: Duration = .seconds(10)

    /// An account whose passphrase the keyring holds.
    public struct Account: Sendable, Hashable {
        public let address: Address
        /// Its items, unlocked ones first, each locked or not as it was found.
        public let items: [KeyringItem]

        /// Whether no item of it can be read until the keyring is unlocked.
        public var isLocked: Bool { items.allSatisfy(\.isLocked) }
    }

    /// The keyring it reads and writes.
    public let keyring: Keyring

    /// The accounts of `keyring`.
    public init(_ keyring: Keyring) { self.keyring = keyring }

    /// Connects to the keyring of the session `environment` names (`Keyring.connect`), with
    /// `readLimit` for the connection and every call after it.
    public static func connect(environment: [String: String]) async throws(KeyringError) -> AccountKeyring {
        AccountKeyring(try await Keyring.connect(environment: environment, within: readLimit))
    }

    /// Whether secrets cross the session bus unencrypted, the service having refused the
    /// encrypted session.
    public var isPlain: Bool { keyring.transport == .plain }

    /// The accounts it holds, in address order; an item of the schema with no valid address
    /// is not one. Reads every item's attributes: where the account is known, `account(_:)`
    /// asks for its items alone.
    public func accounts() async throws(KeyringError) -> [Account] {
        let items = try await keyring.search(attributes: ["xdg:schema": Self.schema])
        var byAddress: [Address: [KeyringItem]] = [:]
        for item in items {
            guard let address = try? Address(item.attributes["address"] ?? "") else { continue }
            byAddress[address, default: []].append(item)
        }
        return byAddress.map { Account(address: $0.key, items: $0.value) }.sorted { $0.address < $1.address }
    }

    /// The account `address`, if the keyring holds its passphrase: one search, no item's
    /// attributes read.
    public func account(_ address: Address) async throws(KeyringError) -> Account? {
        let items = try await keyring.search(attributes: Self.attributes(of: address), readingAttributes: false)
        return items.isEmpty ? nil : Account(address: address, items: items)
    }

    private static func attributes(of address: Address) -> [String: String] {
        ["xdg:schema": schema, "address": address.description]
    }

    /// Stores `passphrase` as its account's, replacing what was stored for that account (every
    /// item of it), and says which account that is. Unlocks the collection first if it must
    /// (a prompt).
    @discardableResult
    public func store(_ passphrase: Passphrase) async throws(KeyringError) -> Address {
        let address = KeyPair(passphrase: passphrase).address
        var secret = passphrase.withUTF8 { Array($0) }
        defer { SecureMemory.zero(&secret) }
        let stored = try await keyring.store(
            secret: secret, label: "ADAMANT account \(address)", attributes: Self.attributes(of: address))
        for item in try await account(address)?.items ?? [] where item.path != stored.path {
            try await delete(item)
        }
        return address
    }

    /// The keys of `account`, from its passphrase, checked to be that account's: its items in
    /// order, the first that holds it. Locked, they are unlocked through the service's prompt
    /// first when `unlocking`; else it is `locked`.
    public func keyPair(of account: Account, unlocking: Bool = true) async throws(KeyringError) -> KeyPair {
        if account.isLocked {
            guard unlocking else { throw .locked("the item of \(account.address) is locked") }
            try await keyring.unlock(account.items)
        }
        // Unlocked just now, every item can be read; else those that were unlocked.
        let readable = account.isLocked ? account.items : account.items.filter { !$0.isLocked }
        var wrong: KeyringError?
        for item in readable {
            do {
                return try await keyPair(of: account.address, in: item)
            } catch .noSuchItem {
                continue  // deleted since the search
            } catch .notAPassphrase(let detail) {
                wrong = wrong ?? .notAPassphrase(detail)
            }
        }
        throw wrong ?? .noSuchItem("the passphrase of \(account.address) was removed meanwhile")
    }

    private func keyPair(of address: Address, in item: KeyringItem) async throws(KeyringError) -> KeyPair {
        var secret = try await keyring.secret(of: item)
        defer { SecureMemory.zero(&secret) }
        let passphrase: Passphrase
        do { passphrase = try Passphrase(validating: &secret) } catch {
            throw .notAPassphrase("the item of \(address) does not hold a passphrase (\(error))")
        }
        let keyPair = KeyPair(passphrase: passphrase)
        guard keyPair.address == address else {
            throw .notAPassphrase("the item of \(address) holds the passphrase of \(keyPair.address)")
        }
        return keyPair
    }

    /// `account` once an item of it is unlocked, by the user or the desktop's login, looking
    /// every `interval`; it never asks for the unlock itself.
    public func unlocked(_ account: Account, every interval: Duration) async throws(KeyringError) -> Account {
        var current = account
        while current.isLocked {
            do { try await Task.sleep(for: interval) } catch { throw .locked("stopped waiting for the unlock") }
            keyring.restartDeadline()
            guard let found = try await self.account(account.address) else {
                throw .noSuchItem("the passphrase of \(account.address) was removed meanwhile")
            }
            current = found
        }
        return current
    }

    /// Deletes every item of `account`, unlocking them first if they are locked (a prompt).
    public func remove(_ account: Account) async throws(KeyringError) {
        let locked = account.items.filter(\.isLocked)
        if !locked.isEmpty { try await keyring.unlock(locked) }
        for item in account.items { try await delete(item) }
    }

    /// Deletes `item`; one already gone is not an error.
    private func delete(_ item: KeyringItem) async throws(KeyringError) {
        do { try await keyring.delete(item) } catch .noSuchItem {}
    }
}
