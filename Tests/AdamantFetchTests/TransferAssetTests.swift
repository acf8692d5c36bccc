import AdamantCore
import AdamantNodes
import Testing

@testable import AdamantFetch

/// A transfer's signed bytes hold no asset, so a chat asset a node hangs on one is no message
/// (fuzz finding on the outbox's side, the same hole here): it is neither shown nor allowed to
/// hide the transfer from `watch`.
@Suite("A chat asset on a transfer")
struct TransferAssetTests {
    static let me = KeyPair(passphrase: Passphrase(unvalidated: "transfer asset me"))
    static let friend = KeyPair(passphrase: Passphrase(unvalidated: "transfer asset friend"))

    /// A confirmed transfer from the friend, with a chat asset that opens as "hidden words".
    static func transferCarryingAChat() throws -> Transaction {
        var transfer = Transaction(
            type: .transfer, amount: ADMAmount.unitsPerADM, senderPublicKey: friend.publicKey, recipientId: me.address,
            timestamp: 1)
        transfer.height = 10
        transfer.chat = try ChatKey(secretKey: friend.secretKey, partner: me.publicKey).seal("hidden words")
        return transfer
    }

    @Test func isNotDecryptedOrShown() async throws {
        // A node nobody asks: the transaction is handed over, and a transfer needs no key.
        let nowhere = NodePool(
            nodes: NodeList(
                endpoints: [NodeEndpoint(url: try NodeURL("http://127.0.0.1:9"))], nethash: .majority,
                source: .arguments))
        let fetcher = Fetcher(keyPair: Self.me, client: NodeClient(pool: nowhere))
        let result = try await fetcher.show(try Self.transferCarryingAChat(), within: .seconds(5))
        #expect(result.failure == nil)
        #expect(result.text == nil)
        #expect(!result.notification.body.contains("hidden"), "\(result.notification)")
        #expect(!result.notification.title.contains("hidden"))
    }

    /// A chat with no asset has no id to compute: it is refused as unverifiable, not shown as
    /// transaction 0.
    @Test func aTransactionWithNoIdToComputeIsUnverifiable() async throws {
        let nowhere = NodePool(
            nodes: NodeList(
                endpoints: [NodeEndpoint(url: try NodeURL("http://127.0.0.1:9"))], nethash: .majority,
                source: .arguments))
        let fetcher = Fetcher(keyPair: Self.me, client: NodeClient(pool: nowhere))
        let chat = Transaction(
            type: .chat, amount: 0, senderPublicKey: Self.friend.publicKey, recipientId: Self.me.address, timestamp: 1)
        let error = await #expect(throws: FetchFailure.self) { _ = try await fetcher.show(chat, within: .seconds(5)) }
        guard case .unverifiable(.noID)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(
            error?.description.hasPrefix("the transaction cannot be verified: it has no id, and none can be computed")
                == true, "\(String(describing: error))")
    }

    @Test func doesNotHideTheTransferFromWatch() throws {
        let candidates = WatchFilter.notifiable([try Self.transferCarryingAChat()], for: Self.me.address)
        #expect(candidates.count == 1)
    }
}
