import AdamantCore

/// Hostile chat assets and partner keys (docs/protocol.md §6): `mode ‖ [partner key] ‖
/// nonce length ‖ nonce ‖ ciphertext`. Even modes use a real partner, so the seeds' messages do
/// decrypt; odd modes take the partner's 32-byte key from the input.
enum ChatFuzz {
    /// The chat vectors' first pair ("common", Vectors/chat.json).
    static let account: KeyPair = {
        var secret =
            Hex.decode(
                "e91ee8e6a23ac5ff9452a15a3fbd14098dc2c6a5abf6b12464b09eb033580b6d9f895a201fd92cc60ef02d2117d53f00dc2981903cb64b2f214777269b882209"
            ) ?? []
        guard let pair = try? KeyPair(secretKey: &secret) else { fatalError("the vector's secret key does not load") }
        return pair
    }()
    static let partner = try? PublicKey(hex: "8007a01493bb4b21ec67265769898eb19514d9427bd7b701f96bc9880a6e209f")
    static let partnerKey = partner.flatMap { try? ChatKey(secretKey: account.secretKey, partner: $0) }

    static func run(_ data: [UInt8]) {
        var input = data[...]
        guard let mode = input.popFirst() else { return }
        let key: ChatKey
        let partner: PublicKey
        if mode % 2 == 0 {
            guard let known = partnerKey, let knownPartner = Self.partner else {
                fatalError("the vector's partner key does not load")
            }
            (key, partner) = (known, knownPartner)
        } else {
            guard input.count >= PublicKey.length,
                let hostile = try? PublicKey(bytes: Array(input.prefix(PublicKey.length)))
            else { return }
            input = input.dropFirst(PublicKey.length)
            guard let derived = try? ChatKey(secretKey: account.secretKey, partner: hostile) else { return }
            (key, partner) = (derived, hostile)
        }
        guard let nonceLength = input.popFirst() else { return }
        let nonce = Array(input.prefix(Int(nonceLength)))
        let message = Array(input.dropFirst(Int(nonceLength)))
        let chatType = ChatType(rawValue: Int(mode / 2) % 4) ?? .message
        let asset = ChatAsset(message: message, nonce: nonce, type: chatType)

        guard let plaintext = try? key.open(asset) else { return }
        _ = try? PushSignal(plaintext: plaintext)
        // The sender's side reads the same text.
        var transaction = Transaction(
            type: .chat, amount: 0, senderPublicKey: account.publicKey, recipientId: partner.address, timestamp: 0,
            chat: asset)
        transaction.senderId = account.address
        invariant(
            (try? transaction.decryptMessage(with: account, partner: partner)) == plaintext,
            "a message opens differently")
    }
}
