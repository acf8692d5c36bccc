import AdamantCore

/// The message adamant-ns hands to Firebase (`buildNotification`), written as FCM HTTP v1 JSON.
enum FCMMessage {
    /// The fixed values the service puts in every push's `txn-id` and `push-recipient` (for
    /// clients of the older service): the same in every push, whatever it is about, and well
    /// formed, so a client must read `txn` and never trust or look up these two.
    static let transactionIDPlaceholder = "1780057658950425716"
    static let recipientPlaceholder = "U3716604363012166999"

    /// - Parameter txn: the transaction as the node's JSON returned it to the service; FCM data
    ///   values are strings, so it goes in as JSON text.
    static func text(_ transaction: Transaction, txn: JSONValue, to device: NSDevice) -> String {
        let sender = transaction.senderPublicKey.address.description
        let body =
            transaction.type == .transfer
            ? "Transfer of \(javaScriptADM(transaction.amount))" : "You received a new message from \(sender)"
        let message: JSONValue = [
            "message": [
                "token": .string(device.token),
                "notification": ["title": .string(sender), "body": .string(body)],
                "data": [
                    "txn": .string(txn.text), "txn-id": .string(transactionIDPlaceholder),
                    "push-recipient": .string(recipientPlaceholder),
                ],
            ]
        ]
        return message.text
    }

    /// `amount / 1e8` as JavaScript prints it: no unit, no trailing zeros, and below 1e-6 in
    /// exponent form (`5e-7`), which plain decimals would not reproduce.
    static func javaScriptADM(_ units: Int64) -> String {
        guard units > 0, units < 100 else { return ADMAmount(units: units).description }
        if units < 10 { return "\(units)e-8" }
        return units % 10 == 0 ? "\(units / 10)e-7" : "\(units / 10).\(units % 10)e-7"
    }
}
