import AdamantCore
import AdamantFetch
import Foundation

/// KVS state assets and AIP-3 values (docs/protocol.md §4.2, §9): `mode ‖ bytes`.
/// - mode 0: the bytes are `asset.state` JSON: reading, signed bytes, fee, signing, re-encoding.
/// - mode 1: the bytes are a stored value, opened with the account's key.
/// - mode 2: the bytes are a payload's JSON, sealed for the account, then read as its address book.
enum KVSFuzz {
    static let owner: KeyPair = {
        var seed = [UInt8](repeating: 7, count: 32)
        guard let pair = try? KeyPair(seed: &seed) else { fatalError("a 32-byte seed always loads") }
        return pair
    }()
    static let key = KVSKey(keyPair: owner)

    static func run(_ data: [UInt8]) {
        guard let mode = data.first else { return }
        let rest = Array(data.dropFirst())
        switch mode % 3 {
        case 0: stateAsset(rest)
        case 1: _ = try? key.open(String(decoding: rest, as: UTF8.self), payloadAs: [String: String].self)
        default: addressBook(rest)
        }
    }

    private static func stateAsset(_ bytes: [UInt8]) {
        guard let state = try? JSONReader.read(bytes, { reader throws(JSONReadError) in try StateAsset(json: &reader) })
        else { return }
        var transaction = Transaction(
            type: .state, amount: 0, senderPublicKey: owner.publicKey, recipientId: nil, timestamp: 0, state: state)
        _ = try? transaction.validate()
        guard (try? Fee.of(transaction)).map({ $0 >= Fee.messageUnit }) == true else {
            fatalError("a state has a fee of at least one unit")
        }
        do { try transaction.sign(with: owner) } catch {
            fatalError("any decoded state asset has signed bytes: \(error)")
        }
        invariant((try? transaction.verify()) == transaction.id, "a freshly signed state does not verify")
        let again = (try? JSONEncoder().encode(transaction)).flatMap { try? Transaction(json: Array($0)) }
        invariant(again == transaction, "a state transaction does not round-trip through JSON")
    }

    private static func addressBook(_ payload: [UInt8]) {
        guard payload.count <= 8_000, let text = String(validating: payload, as: UTF8.self) else { return }
        let value = key.seal(payloadJSON: text)
        guard
            let transaction = try? Transaction.state(key: AddressBook.key, value: value, timestamp: 0, signedBy: owner)
        else { return }
        guard let book = try? AddressBook(decrypting: transaction, keyPair: owner) else { return }
        invariant(book.count <= payload.count, "more names than payload bytes")
    }
}
