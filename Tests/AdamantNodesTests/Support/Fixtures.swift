import AdamantCore
import Foundation
import Testing

@testable import AdamantNodes

enum Fixtures {
    /// A fixed "true" time for the scripted nodes: 2026-01-01T00:00:00Z.
    static let unixMillis: Int64 = 1_767_225_600_000
    static let nodeEpochMillis = AdamantTime.epochMillis(unixMillis: unixMillis)

    static let sender = KeyPair(
        passphrase: try! Passphrase(
            validating: "wrap track hamster grocery casual talk theory half artist toast art essence"))
    static let recipient = KeyPair(
        passphrase: try! Passphrase(
            validating: "process gospel angry height between flat always clock suit refuse shove verb"))

    static func chat(timestamp: Int32 = Int32(nodeEpochMillis / 1000), text: UInt8 = 7) -> Transaction {
        let asset = ChatAsset(
            message: [UInt8](repeating: text, count: 20), nonce: [UInt8](repeating: 1, count: 24), type: .message)
        return try! Transaction.chat(asset, to: recipient.address, timestamp: timestamp, signedBy: sender)
    }

    static func transfer(timestamp: Int32 = Int32(nodeEpochMillis / 1000)) -> Transaction {
        try! Transaction.transfer(amount: 100_000_000, to: recipient.address, timestamp: timestamp, signedBy: sender)
    }

    /// As `/api/transactions/get` returns it: in a block.
    static func confirmed(_ transaction: Transaction) -> Transaction {
        var confirmed = transaction
        confirmed.height = 1_000
        confirmed.blockId = "13885000778367150465"
        confirmed.confirmations = 3
        return confirmed
    }

    /// Signed, then changed: the signature no longer covers the bytes.
    static func tampered(_ transaction: Transaction) -> Transaction {
        var tampered = transaction
        tampered.amount += 1
        return tampered
    }

    static func json(_ transaction: Transaction) -> String {
        String(decoding: try! JSONEncoder().encode(transaction), as: UTF8.self)
    }

    static func transactionBody(_ transaction: Transaction) -> String {
        #"{"success":true,"nodeTimestamp":1,"transaction":\#(json(transaction))}"#
    }

    /// The transaction of a submission body, `{"transaction": {…}}`.
    static func submitted(_ body: [UInt8]?) throws -> Transaction {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body ?? [])) as? [String: Any])
        return try Transaction(json: Array(JSONSerialization.data(withJSONObject: try #require(object["transaction"]))))
    }

    static func accepted(_ id: TransactionID) -> Behavior {
        .json(#"{"success":true,"nodeTimestamp":1,"transactionId":"\#(id)"}"#)
    }

    /// A pool over scripted nodes with tight timings, its wall clock at the fixed time.
    static func pool(
        _ transport: ScriptedTransport, nodes: [String], nethash: NethashRule = .majority,
        clock: AnyClock = .continuous, wallClock: any WallClock = ManualWallClock(unixMillis: unixMillis),
        configure: (inout NodePool.Configuration) -> Void = { _ in }
    ) -> NodePool {
        var configuration = NodePool.Configuration()
        configuration.statusTimeout = .seconds(1)
        // scripted nodes answer at once; this only has to outlast a stalled test process
        configuration.healthCheckDeadline = .seconds(30)
        configuration.requestTimeout = .seconds(2)
        configure(&configuration)
        let list = NodeList(
            endpoints: nodes.map { NodeEndpoint(url: try! NodeURL($0)) }, nethash: nethash, source: .arguments)
        return NodePool(
            nodes: list, transport: transport, configuration: configuration, clock: clock, wallClock: wallClock)
    }
}
