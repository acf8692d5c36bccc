import AdamantCore
import AdamantDevnet
import AdamantFetch
import Foundation
import Testing

/// The vector files in the repository's `Vectors/` folder, as loose JSON.
private enum VectorFile {
    static func load(_ name: String) throws -> [[String: Any]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Vectors").appendingPathComponent(name)
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [[String: Any]]
    }
}

@Suite("Address book (AIP-7 contact_list)")
struct AddressBookTests {
    static let owner = KeyPair.random()
    static let alice = KeyPair.random().address, bob = KeyPair.random().address

    static func list(_ value: String, key: String = AddressBook.key, by keyPair: KeyPair = owner) throws -> Transaction
    {
        var transaction = Transaction(
            type: .state, amount: 0, senderPublicKey: keyPair.publicKey, recipientId: nil, timestamp: 276_000_000,
            state: StateAsset(key: key, value: value))
        try transaction.sign(with: keyPair)
        return transaction
    }

    static func sealed(_ payloadJSON: String) -> String { KVSKey(keyPair: owner).seal(payloadJSON: payloadJSON) }

    /// The generator's contact list (PyNaCl), stored in a type 9 vector.
    @Test func readsThePythonVector() throws {
        let vector = try #require(
            try VectorFile.load("transactions.json").first { $0["name"] as? String == "state encrypted contact_list" })
        let transaction = try Transaction(json: Array(JSONSerialization.data(withJSONObject: vector["transaction"]!)))
        let keyPair = KeyPair(passphrase: try Passphrase(validating: vector["passphrase"] as! String))
        let book = try AddressBook(decrypting: transaction, keyPair: keyPair)
        let contacts = try #require(try VectorFile.load("kvs.json").first)["payload"] as! [String: [String: String]]
        #expect(book.count == 3)
        for (address, entry) in contacts {
            #expect(book.name(of: try Address(address)) == entry["displayName"])
        }
        #expect(contacts.values.contains { $0["displayName"] == "line\nbreak\u{7}bell" }, "control characters are kept")
    }

    @Test func roundTripsThroughTheDevnetsSeal() throws {
        let value = try KVSKey(keyPair: Self.owner).seal(payload: [
            Self.alice.description: ["displayName": "Alice\u{1b}[31m"]
        ])
        let book = try AddressBook(decrypting: try Self.list(value), keyPair: Self.owner)
        #expect(book.name(of: Self.alice) == "Alice\u{1b}[31m" && book.name(of: Self.bob) == nil)
    }

    /// Entries of the wrong shape name no one; the rest of the book still reads.
    @Test func wrongTypesAndBadKeysAreSkipped() throws {
        let payload =
            #"{"\#(Self.alice)":{"displayName":"Alice","eth":"0x1","x":[1,{"y":null}]},"\#(Self.bob)":{"displayName":7},"#
            + #""U1":5,"U2":null,"U3":[],"U4":{"displayName":""},"not an address":{"displayName":"Eve"},"U5":{"displayName":{"a":1}}}"#
        let book = try AddressBook(decrypting: try Self.list(Self.sealed(payload)), keyPair: Self.owner)
        #expect(book.count == 1 && book.name(of: Self.alice) == "Alice")
    }

    @Test(arguments: [
        #"["U1"]"#, #""names""#, "7", "null", String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func aPayloadThatIsNoObjectIsUnreadable(_ payload: String) throws {
        #expect(throws: AddressBookError.self) {
            try AddressBook(decrypting: try Self.list(Self.sealed(payload)), keyPair: Self.owner)
        }
    }

    @Test func deepNestingIsRefused() throws {
        let deep = #"{"U1":"# + String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40) + "}"
        #expect(throws: AddressBookError.unreadable(.tooDeep)) {
            try AddressBook(decrypting: try Self.list(Self.sealed(deep)), keyPair: Self.owner)
        }
    }

    @Test func aPlainValueIsNotAccepted() throws {
        let plain = #"{"\#(Self.alice)":{"displayName":"Alice"}}"#
        #expect(throws: AddressBookError.unreadable(.notEncrypted)) {
            try AddressBook(decrypting: try Self.list(plain), keyPair: Self.owner)
        }
    }

    @Test func aHugeValueIsRefusedBeforeDecrypting() throws {
        let huge = #"{"message":""# + String(repeating: "00", count: 15_000) + #"","nonce":"00"}"#
        #expect(throws: AddressBookError.unreadable(.tooLarge(huge.utf8.count))) {
            try AddressBook(decrypting: try Self.list(huge), keyPair: Self.owner)
        }
    }

    @Test func onlyTheOwnersSignedContactListIsRead() throws {
        let value = Self.sealed(#"{"U1":{"displayName":"A"}}"#)
        #expect(throws: AddressBookError.notAContactList) {
            try AddressBook(decrypting: try Self.list(value, key: "eth:address"), keyPair: Self.owner)
        }
        let other = KeyPair.random()
        #expect(throws: AddressBookError.notTheOwner) {
            try AddressBook(decrypting: try Self.list(value, by: other), keyPair: Self.owner)
        }
        var tampered = try Self.list(value)
        tampered.timestamp += 1
        #expect(throws: AddressBookError.invalidTransaction(.invalidSignature)) {
            try AddressBook(decrypting: tampered, keyPair: Self.owner)
        }
        let transfer = try Transaction.transfer(amount: 1, to: Self.alice, timestamp: 1, signedBy: Self.owner)
        #expect(throws: AddressBookError.notAContactList) { try AddressBook(decrypting: transfer, keyPair: Self.owner) }
    }

    @Test func theNewestListWins() throws {
        var older = try Self.list(Self.sealed(#"{"\#(Self.alice)":{"displayName":"Old"}}"#))
        older.timestamp -= 10
        try older.sign(with: Self.owner)
        let newer = try Self.list(Self.sealed(#"{"\#(Self.alice)":{"displayName":"New"}}"#))
        #expect(try AddressBook(newestOf: [older, newer], keyPair: Self.owner).name(of: Self.alice) == "New")
        #expect(try AddressBook(newestOf: [newer, older], keyPair: Self.owner).name(of: Self.alice) == "New")
        #expect(try AddressBook(newestOf: [], keyPair: Self.owner).count == 0)
    }

    /// The devnet's `/contacts` counterpart stores what the book reads.
    @Test(.timeLimit(.minutes(1))) func readsWhatTheDevnetStores() throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = 1
        configuration.blockTime = .seconds(600)
        configuration.poolInterval = .seconds(600)
        configuration.ansPollInterval = .seconds(600)
        let owner = DevnetAccount.random()
        configuration.allocations = [.init(owner, amount: try ADMAmount("10"))]
        let devnet = try Devnet(configuration)
        defer { devnet.stop() }
        let id = try devnet.storeContacts(of: owner.address, names: [Self.alice: "Alice", Self.bob: "Bob\n"])
        devnet.mine()
        let stored = try #require(devnet.confirmedTransactions.first { $0.id == id })
        let book = try AddressBook(newestOf: [stored], keyPair: owner.keyPair)
        #expect(book.name(of: Self.alice) == "Alice" && book.name(of: Self.bob) == "Bob\n")
    }
}
