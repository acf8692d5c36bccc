public import AdamantCore

/// An account's address book (AIP-7): the names it gave its partners, stored by the clients
/// as the encrypted KVS value `contact_list`, `{"U…": {"displayName": "…", …}, …}`.
///
/// Only names are kept. They are kept exactly as stored, control characters and all: making
/// them safe to show is the renderer's job.
public struct AddressBook: Sendable, Hashable {
    /// The KVS key the iOS and web clients store it under.
    public static let key = "contact_list"

    private let names: [Address: String]

    /// A book of the given names; empty names are dropped, as if the partner had none.
    public init(names: [Address: String] = [:]) { self.names = names.filter { !$0.value.isEmpty } }

    /// Reads the newest `contact_list` transaction of the account `keyPair` belongs to.
    /// - Throws: `AddressBookError` when it is not that account's contact list, was tampered
    ///   with, is not encrypted, or does not decrypt to an object. Entries of the wrong shape
    ///   and keys that are not addresses are skipped, not fatal.
    public init(decrypting transaction: Transaction, keyPair: KeyPair) throws(AddressBookError) {
        guard transaction.type == .state, let state = transaction.state, state.key == Self.key else {
            throw .notAContactList
        }
        guard transaction.senderPublicKey == keyPair.publicKey else { throw .notTheOwner }
        do { try transaction.verify() } catch { throw .invalidTransaction(error) }
        let entries: [String: ContactEntry]
        do {
            entries = try KVSKey(keyPair: keyPair).open(state.value, payloadAs: [String: ContactEntry].self)
        } catch {
            throw .unreadable(error)
        }
        var names: [Address: String] = [:]
        for (key, entry) in entries {
            guard let name = entry.displayName, !name.isEmpty, let address = try? Address(key) else { continue }
            names[address] = name
        }
        self.names = names
    }

    /// The newest of `transactions` (as `/api/states/get` lists them) that is the account's
    /// contact list; an empty book when there is none.
    public init(newestOf transactions: [Transaction], keyPair: KeyPair) throws(AddressBookError) {
        let lists = transactions.filter { $0.state?.key == Self.key && $0.senderPublicKey == keyPair.publicKey }
        guard let newest = lists.max(by: { $0.timestamp < $1.timestamp }) else {
            self.init()
            return
        }
        try self.init(decrypting: newest, keyPair: keyPair)
    }

    /// The display name given to `address`, if any.
    public func name(of address: Address) -> String? { names[address] }

    /// How many partners have a name.
    public var count: Int { names.count }
}

/// One value of the payload: an object whose `displayName` is a string, or anything else
/// (then it names no one). Other fields (crypto addresses, timestamps) are ignored.
private struct ContactEntry: Decodable {
    let displayName: String?

    private enum Keys: String, CodingKey { case displayName }

    init(from decoder: any Decoder) throws {
        let container = try? decoder.container(keyedBy: Keys.self)
        displayName = container.flatMap { try? $0.decodeIfPresent(String.self, forKey: .displayName) } ?? nil
    }
}

/// Why a `contact_list` transaction gives no address book.
public enum AddressBookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a type 9 transaction under the key `contact_list`.
    case notAContactList
    /// Signed by another account: only the owner's own list is read.
    case notTheOwner
    /// Its signature, sender or id does not verify.
    case invalidTransaction(TransactionError)
    /// Not encrypted, not decryptable with the owner's key, or not an object once decrypted.
    case unreadable(KVSCryptoError)

    /// The reason in a sentence, for logs.
    public var description: String {
        switch self {
        case .notAContactList: "the transaction is not a contact_list KVS value"
        case .notTheOwner: "the contact list was stored by another account"
        case .invalidTransaction(let error): "the contact list transaction is invalid: \(error)"
        case .unreadable(let error): "the contact list cannot be read: \(error)"
        }
    }
}
