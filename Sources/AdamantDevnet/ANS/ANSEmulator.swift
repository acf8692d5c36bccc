public import AdamantCore
import Foundation

/// How the emulated ANS applies the registration signals of one poll.
public enum ANSMode: String, Sendable, CaseIterable {
    /// As the production C# service does (docs/node-api.md §4.1): per poll, the new adds (skipping
    /// those already stored), then every remove by (token, address), whatever their order; and when
    /// the only adds were duplicates, none of the poll's removes.
    case csharp
    /// Each signal in chain order.
    case ordered
}

/// A device the service would push to.
public struct ANSRegistration: Sendable, Hashable {
    public let address: Address
    public let token: String
    public let provider: String
}

/// A push the service would send: the APNs payload's `txn-id` and `push-recipient`, to a token.
public struct ANSPush: Sendable, Hashable {
    public let transactionID: TransactionID
    public let recipient: Address
    public let token: String
    public let provider: String
}

/// The ADAMANT Notification Service as seen from the chain: it reads the signals sent to its
/// address, keeps a registry, and records one push per registered device for every confirmed
/// transfer or message (not signal) to a registered address. Pure state, polled by the caller.
struct ANSEmulator: Sendable {
    let account: DevnetAccount
    var mode: ANSMode
    private(set) var registrations: [ANSRegistration] = []
    private(set) var pushes: [ANSPush] = []
    /// How many chain transactions earlier polls have read.
    private var cursor = 0
    private let keyPair: KeyPair

    init(account: DevnetAccount, mode: ANSMode) {
        self.account = account
        self.mode = mode
        keyPair = account.keyPair
    }

    /// Reads the transactions confirmed since the last poll as one batch. Returns log lines.
    mutating func poll(_ ledger: Ledger) -> [String] {
        let batch = ledger.chain[cursor...]
        cursor = ledger.chain.count
        var log = [String]()

        let signals = batch.compactMap(signal)
        switch mode {
        case .csharp:
            log += applyAsTheCSharpServiceDoes(signals)
        case .ordered:
            for signal in signals {
                registrations.removeAll(where: signal.matches)
                if signal.isAdd { registrations.append(signal.registration) }
                log.append(
                    "ANS \(signal.isAdd ? "add" : "remove") \(signal.registration.token) for \(signal.registration.address)"
                )
            }
        }

        for transaction in batch where Self.isNotifiable(transaction) {
            for device in registrations where device.address == transaction.recipientId {
                pushes.append(
                    ANSPush(
                        transactionID: transaction.id!, recipient: device.address, token: device.token,
                        provider: device.provider))
                log.append("ANS push \(transaction.id!) to \(device.address) (\(device.provider) \(device.token))")
            }
        }
        return log
    }

    /// `SignalsPoller.ProcessNewTransactions` of the C# ANS (docs/node-api.md §4.1): adds already
    /// stored (before this batch) are dropped; if that leaves no add although some were dropped,
    /// it returns and the batch's removes are lost; otherwise the new adds are inserted (repeats
    /// within the batch too) and then every remove deletes all rows of its (token, address).
    private mutating func applyAsTheCSharpServiceDoes(_ signals: [Signal]) -> [String] {
        let stored = registrations
        let adds = signals.filter(\.isAdd)
        let removes = signals.filter { !$0.isAdd }
        let newAdds = adds.filter { !stored.contains($0.registration) }
        if newAdds.isEmpty && !adds.isEmpty {
            return removes.map {
                "ANS lost remove \($0.registration.token) for \($0.registration.address): the batch's only adds were duplicates"
            }
        }
        registrations += newAdds.map(\.registration)
        for remove in removes { registrations.removeAll(where: remove.matches) }
        return newAdds.map { "ANS add \($0.registration.token) for \($0.registration.address)" }
            + removes.map { "ANS remove \($0.registration.token) for \($0.registration.address)" }
    }

    private static func isNotifiable(_ transaction: Transaction) -> Bool {
        transaction.type == .transfer || (transaction.type == .chat && transaction.chat?.type != .signal)
    }

    private struct Signal {
        let registration: ANSRegistration
        let isAdd: Bool

        /// Removes go by (token, address); the provider is ignored.
        func matches(_ stored: ANSRegistration) -> Bool {
            stored.token == registration.token && stored.address == registration.address
        }
    }

    /// A signal to this service that decrypts to `{token, provider, action}`; a missing or
    /// unknown action means add, as in the C# service. Anything else is ignored.
    private func signal(_ transaction: Transaction) -> Signal? {
        guard transaction.type == .chat, transaction.chat?.type == .signal, transaction.recipientId == account.address,
            let plaintext = try? transaction.decryptMessage(with: keyPair, partner: transaction.senderPublicKey),
            let payload = try? JSONDecoder().decode(Payload.self, from: Data(plaintext.utf8))
        else { return nil }
        let registration = ANSRegistration(
            address: transaction.senderPublicKey.address, token: payload.token, provider: payload.provider)
        return Signal(registration: registration, isAdd: payload.action?.lowercased() != "remove")
    }

    private struct Payload: Decodable {
        let token: String
        let provider: String
        let action: String?
    }
}
