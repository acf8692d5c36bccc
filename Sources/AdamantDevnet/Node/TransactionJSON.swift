import AdamantCore
import Foundation

/// Writes transactions with the keys, order and nulls of each node endpoint
/// (docs/node-api.md §1.4).
struct TransactionJSON {
    let profile: NodeProfile
    let ledger: Ledger

    /// `/api/transactions/get` and `/api/transactions`: `asset` is `{}` unless asked for.
    func confirmed(_ transaction: Transaction, includeAsset: Bool) -> JSONValue {
        let transaction = presented(transaction)
        var members = header(of: transaction)
        members += [
            ("senderPublicKey", .string(transaction.senderPublicKey.hex)),
            ("senderId", address(transaction.senderId)),
            ("recipientId", address(transaction.recipientId)),
            ("recipientPublicKey", recipientPublicKey(of: transaction)),
            ("amount", .integer(transaction.amount)),
            ("fee", .integer(transaction.fee ?? 0)),
            ("signature", .string(Hex.encode(transaction.signature))),
            ("signatures", []),
            ("confirmations", confirmations(of: transaction)),
            ("asset", asset(of: transaction, included: includeAsset)),
        ]
        return .object(members)
    }

    /// `/api/chats/get` and `/api/states/get`: the same plus the multisig nulls. Their SQL views
    /// (`full_trs_list`, `full_blocks_list`) join no account, so `recipientPublicKey` is null.
    func chatListed(_ transaction: Transaction) -> JSONValue {
        let transaction = presented(transaction)
        var members = header(of: transaction)
        members += [
            ("senderPublicKey", .string(transaction.senderPublicKey.hex)),
            ("requesterPublicKey", nil),
            ("senderId", address(transaction.senderId)),
            ("recipientId", address(transaction.recipientId)),
            ("recipientPublicKey", nil),
            ("amount", .integer(transaction.amount)),
            ("fee", .integer(transaction.fee ?? 0)),
            ("signature", .string(Hex.encode(transaction.signature))),
            ("signSignature", nil),
            ("signatures", []),
            ("confirmations", confirmations(of: transaction)),
            ("asset", asset(of: transaction, included: true)),
        ]
        return .object(members)
    }

    /// A pool entry: what the client posted plus what the node adds.
    func pooled(_ entry: Ledger.Pooled) -> JSONValue {
        let transaction = presented(entry.transaction)
        return [
            "type": .integer(Int64(transaction.type.rawValue)),
            "amount": .integer(transaction.amount),
            "senderId": address(transaction.senderId),
            "senderPublicKey": .string(transaction.senderPublicKey.hex),
            "asset": asset(of: transaction, included: true),
            "recipientId": address(transaction.recipientId),
            "timestamp": .integer(Int64(transaction.timestamp)),
            "signature": .string(Hex.encode(transaction.signature)),
            "id": .string(transaction.id?.description ?? ""),
            "fee": .integer(transaction.fee ?? 0),
            "relays": 1,
            "receivedAt": .string(Self.isoTime(unixMillis: entry.receivedAtUnixMillis)),
            "blockId": nil,
            "height": nil,
            "confirmations": 0,
        ]
    }

    /// A socket's `newTrans` (docs/node-api.md §1.7): the node's object before storage, so no
    /// height, block or confirmations, and `recipientPublicKey` only when the recipient has a key.
    func admitted(_ transaction: Transaction) -> JSONValue {
        let transaction = presented(transaction)
        var members: [(key: String, value: JSONValue)] = [
            ("type", .integer(Int64(transaction.type.rawValue))),
            ("amount", .integer(transaction.amount)),
            ("senderId", address(transaction.senderId)),
            ("senderPublicKey", .string(transaction.senderPublicKey.hex)),
            ("asset", asset(of: transaction, included: true)),
            ("recipientId", address(transaction.recipientId)),
            ("timestamp", .integer(Int64(transaction.timestamp))),
            ("signature", .string(Hex.encode(transaction.signature))),
            ("id", .string(transaction.id?.description ?? "")),
            ("fee", .integer(transaction.fee ?? 0)),
            ("block_timestamp", nil),
        ]
        if case .string = recipientPublicKey(of: transaction) {
            members.append(("recipientPublicKey", recipientPublicKey(of: transaction)))
        }
        return .object(members)
    }

    private func header(of transaction: Transaction) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(transaction.id?.description ?? "")),
            ("height", transaction.height.map(JSONValue.integer) ?? .null),
            ("blockId", transaction.blockId.map(JSONValue.string) ?? .null),
            ("type", .integer(Int64(transaction.type.rawValue))),
            ("block_timestamp", transaction.blockTimestamp.map(JSONValue.integer) ?? .null),
            ("timestamp", .integer(Int64(transaction.timestamp))),
        ]
        // 0.10 added the column; it stays null until the "spaceship" activation height.
        if profile.version.timestampPolicy == .v0_10 { members.append(("timestampMs", nil)) }
        return members
    }

    /// The `tamper` fault: one byte of the message, or of the signature for a transfer.
    private func presented(_ transaction: Transaction) -> Transaction {
        guard profile.tampersTransactions else { return transaction }
        var tampered = transaction
        if var chat = tampered.chat, !chat.message.isEmpty {
            chat.message[0] ^= 0x01
            tampered.chat = chat
        } else {
            tampered.signature[0] ^= 0x01
        }
        return tampered
    }

    private func asset(of transaction: Transaction, included: Bool) -> JSONValue {
        guard included else { return [:] }
        if let state = transaction.state {
            // `State.dbRead`'s order.
            return [
                "state": .object([
                    ("value", .string(state.value)), ("key", .string(state.key)), ("type", .integer(Int64(state.type))),
                ])
            ]
        }
        guard let chat = transaction.chat else { return [:] }
        return [
            "chat": [
                "message": .string(Hex.encode(chat.message)),
                "own_message": .string(Hex.encode(chat.nonce)),
                "type": .integer(Int64(chat.type.rawValue)),
            ]
        ]
    }

    private func recipientPublicKey(of transaction: Transaction) -> JSONValue {
        guard let recipient = transaction.recipientId, let key = ledger.account(recipient)?.publicKey else {
            return nil
        }
        return .string(key.hex)
    }

    private func confirmations(of transaction: Transaction) -> JSONValue {
        guard let height = transaction.height else { return 0 }
        return .integer(profile.visibleHeight(of: ledger) - height + 1)
    }

    private func address(_ address: Address?) -> JSONValue { address.map { .string($0.description) } ?? .null }

    static func isoTime(unixMillis: Int64) -> String {
        Date(timeIntervalSince1970: Double(unixMillis) / 1000)
            .formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
