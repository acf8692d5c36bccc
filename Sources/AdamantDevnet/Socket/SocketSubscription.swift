import AdamantCore

/// What one socket client asked to hear about, and the node's rule for whether a transaction
/// is that (`TransactionSubscription.impliesTransaction`, docs/node-api.md §1.7).
struct SocketSubscription: Sendable, Equatable {
    var addresses: Set<Address> = []
    var types: Set<Int> = []
    var chatTypes: Set<Int> = []

    func implies(_ transaction: Transaction) -> Bool {
        if !addresses.isEmpty {
            let involved = [transaction.recipientId, transaction.senderId].contains {
                $0.map(addresses.contains) ?? false
            }
            guard involved else { return false }
            if types.isEmpty && chatTypes.isEmpty { return true }
        }
        if !chatTypes.isEmpty, transaction.type == .chat, let chat = transaction.chat {
            return chatTypes.contains(Int(chat.type.rawValue))
        }
        return types.contains(Int(transaction.type.rawValue))
    }

    /// Takes one of the subscription events; one that validates nothing is ignored, as the
    /// node ignores it, without an answer.
    mutating func take(_ event: SocketIOEvent) {
        guard let arguments = try? JSONValue(document: event.json, keyNamedTwice: .lastCounts),
            case .array(let elements) = arguments, elements.count >= 2
        else { return }
        let values: [JSONValue] = if case .array(let list) = elements[1] { list } else { [elements[1]] }
        switch event.name {
        case "address":
            addresses.formUnion(values.compactMap { $0.string.flatMap { try? Address($0.uppercased()) } })
        case "types":
            types.formUnion(values.compactMap(\.integer).filter { (0...9).contains($0) })
        case "assetChatTypes":
            chatTypes.formUnion(values.compactMap(\.integer).filter { (0...3).contains($0) })
        default:
            break
        }
    }
}

extension JSONValue {
    fileprivate var integer: Int? {
        guard case .number(let literal) = self else { return nil }
        return Int(literal)
    }
}
