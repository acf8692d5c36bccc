import AdamantCore
import AdamantNodes

/// The small values users and nodes spell as text: `selector ‖ text`. Each parser must accept
/// its own output, and give back the same value.
enum ValuesFuzz {
    static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let text = data.dropFirst()[...].text
        switch selector % 8 {
        case 0:
            guard let address = try? Address(text) else { return }
            invariant(address.description == text, "address \(text) prints as \(address)")
        case 1:
            guard let amount = try? ADMAmount(text) else { return }
            invariant((0...ADMAmount.totalSupply.units).contains(amount.units), "amount \(text) is out of range")
            invariant(
                (try? ADMAmount(amount.description)) == amount, "amount \(text) does not read back from \(amount)")
        case 2:
            guard let id = TransactionID(text) else { return }
            invariant(TransactionID(id.description) == id, "id \(text) does not read back from \(id)")
        case 3:
            guard let key = try? PublicKey(hex: text) else { return }
            invariant(key.hex == text, "public key \(text) prints as \(key.hex)")
        case 4:
            guard let version = NodeVersion(text) else { return }
            invariant(NodeVersion(version.description) == version, "version \(text) does not read back from \(version)")
        case 5:
            guard let nethash = Nethash(text) else { return }
            invariant(Nethash(nethash.hex) == nethash, "nethash \(text) does not read back")
        case 6:
            guard let url = try? NodeURL(text) else { return }
            invariant((try? NodeURL(url.description)) == url, "node URL \(text) does not read back from \(url)")
            _ = url.description
        default:
            guard let bytes = Hex.decode(text) else { return }
            invariant(Hex.encode(bytes) == text, "hex \(text) is not canonical")
        }
    }
}
