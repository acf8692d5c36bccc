import AdamantCore

/// A passphrase as typed or read from a file: any bytes, validated as a BIP39 phrase.
enum PassphraseFuzz {
    static func run(_ data: [UInt8]) {
        var bytes = data
        do {
            _ = try Passphrase(validating: &bytes)
        } catch {
            _ = error.description
            _ = error.kind
        }
        invariant(bytes.allSatisfy { $0 == 0 }, "the phrase's bytes are not zeroed")
    }
}
