public import AdamantCore

/// ADAMANT accounts' passphrases in the desktop's keyring: one item per account in the default
/// collection, labelled "ADAMANT account U…" and found by the attributes `address` and
/// `xdg:schema` (`schema`), as libsecret's tools and the desktop's keyring manager show them.
public struct AccountKeyring: Sendable {
    /// The schema name its items carry, which no other program's items do.
    public static let schema = "im.adamant.Account"

    /// An account whose passphrase the keyring holds.
    public struct Account: Sendable, Hashable {
        public let address: Address
        /// The keyring's item, locked or not as it was found.
        public let item: KeyringItem
    }

    /// The keyring it reads and writes.
    public let keyring: Keyring

    /// The accounts of `keyring`.
    public init(_ keyring: Keyring) { self.keyring = keyring }

    /// Connects to the keyring of the session `environment` names (`Keyring.connect`).
    public static func connect(environment: [String: String]) async throws(KeyringError) -> AccountKeyring {
        AccountKeyring(try await Keyring.connect(environment: environment))
    }

    /// The accounts it holds, in address order; an item of the schema with no valid address
    /// is not one.
    public func accounts() async throws(KeyringError) -> [Account] {
        try await keyring.search(attributes: ["xdg:schema": Self.schema]).compactMap { item in
            (try? Address(item.attributes["address"] ?? "")).map { Account(address: $0, item: item) }
        }.sorted { $0.address < $1.address }
    }

    /// Stores `passphrase` as its account's, replacing what was stored for that account, and
    /// says which account that is. Unlocks the collection first if it must (a prompt).
    @discardableResult
    public func store(_ passphrase: Passphrase) async throws(KeyringError) -> Address {
        let address = KeyPair(passphrase: passphrase).address
        var secret = passphrase.withUTF8 { Array($0) }
        defer { SecureMemory.zero(&secret) }
        try await keyring.store(
            secret: secret, label: "ADAMANT account \(address)",
            attributes: ["xdg:schema": Self.schema, "address": address.description])
        return address
    }

    /// The keys of `account`, from its passphrase, checked to be that account's. Locked, it is
    /// unlocked through the service's prompt first when `unlocking`; else it is `locked`.
    public func keyPair(of account: Account, unlocking: Bool = true) async throws(KeyringError) -> KeyPair {
        if account.item.isLocked {
            guard unlocking else { throw .locked("the item of \(account.address) is locked") }
            try await keyring.unlock([account.item])
        }
        var secret = try await keyring.secret(of: account.item)
        defer { SecureMemory.zero(&secret) }
        let passphrase: Passphrase
        do { passphrase = try Passphrase(validating: &secret) } catch {
            throw .notAPassphrase("the item of \(account.address) does not hold a passphrase (\(error))")
        }
        let keyPair = KeyPair(passphrase: passphrase)
        guard keyPair.address == account.address else {
            throw .notAPassphrase("the item of \(account.address) holds the passphrase of \(keyPair.address)")
        }
        return keyPair
    }

    /// `account` once its item is unlocked, by the user or the desktop's login, looking every
    /// `interval`; it never asks for the unlock itself.
    public func unlocked(_ account: Account, every interval: Duration) async throws(KeyringError) -> Account {
        var current = account
        while current.item.isLocked {
            do { try await Task.sleep(for: interval) } catch { throw .locked("stopped waiting for the unlock") }
            guard let found = try await accounts().first(where: { $0.address == account.address }) else {
                throw .noSuchItem("the passphrase of \(account.address) was removed meanwhile")
            }
            current = found
        }
        return current
    }

    /// Deletes `account`'s item, unlocking it first if it is locked (a prompt).
    public func remove(_ account: Account) async throws(KeyringError) {
        if account.item.isLocked { try await keyring.unlock([account.item]) }
        try await keyring.delete(account.item)
    }
}
