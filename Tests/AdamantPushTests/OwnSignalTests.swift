import AdamantCore
import AdamantNodes
import Foundation
import Testing

@testable import AdamantPush

/// The account's own signals as the outbox reads them from a listing, as the own-signals fuzz
/// target found them (Fuzz/Crashes/own-signals/).
@Suite("Own signals")
struct OwnSignalTests {
    /// Fuzz/Crashes/own-signals/asset-on-a-transfer-kept-as-a-signal: a transfer's asset is not
    /// in its signed bytes, so a node can hang any chat asset on the account's transfer to the
    /// service (a signal copied from the chain, say) and it still verifies. The outbox kept it as
    /// a signal, which the service never reads: here a remove that landed looked undone.
    @Test func aChatAssetOnATransferIsNoSignal() async throws {
        let home = try TemporaryDirectory.privateHome()
        let account = KeyPair(passphrase: Passphrase(unvalidated: "own signal test"))
        let service = NotificationService.adamantIOS
        let token = String(repeating: "ab", count: 32)
        func signal(_ action: PushAction, at height: Int64) throws -> Transaction {
            var transaction = try Transaction.signal(
                PushSignal(token: token, provider: .apns, action: action), to: service,
                timestamp: 1_000 + Int32(height), signedBy: account)
            transaction.height = height
            return transaction
        }
        let added = try signal(.add, at: 10)
        var transfer = try Transaction.transfer(amount: 1, to: service.address, timestamp: 1_040, signedBy: account)
        transfer.chat = added.chat
        transfer.height = 40
        #expect(throws: Never.self) { try transfer.verify() }

        let listed = [added, try signal(.remove, at: 30), transfer]
        let outbox = try Outbox(
            home: home.path, keyPair: account, service: service, chain: ListedChain(transactions: listed))
        let state = try await outbox.tokensOnChain()[token]
        #expect(state?.standing == .unregistered)
        #expect(state?.last?.height == 30)
        #expect(try await outbox.keptSignals().count == 2)
    }
}

/// A chain whose only news is `transactions`, listed as the account's signals.
struct ListedChain: SignalChain {
    let transactions: [Transaction]

    func height() async throws(NodeError) -> Int64 { 100 }
    func signals(sentBy sender: Address, afterHeight: Int64, offset: Int) async throws(NodeError) -> [Transaction] {
        offset == 0 ? transactions : []
    }
    func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation { .notFound }
    func spendableBalance(of address: Address) async throws(NodeError) -> ADMAmount { ADMAmount(units: 0) }
    func send(
        _ asset: ChatAsset, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool,
        willSend: @Sendable (Transaction) async throws -> Void
    ) async throws -> SentSignal {
        throw NodeError.cancelled
    }
}
