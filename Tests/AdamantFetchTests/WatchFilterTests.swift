import AdamantCore
import Testing

@testable import AdamantFetch

/// A page's notifications come in block order, and in the node's order within a block,
/// whatever order the node listed the blocks in.
@Suite struct WatchFilterTests {
    static let me = KeyPair(passphrase: Passphrase(unvalidated: "watch filter me"))
    static let friend = KeyPair(passphrase: Passphrase(unvalidated: "watch filter friend"))

    static func transfer(_ amount: Int64, height: Int64) throws -> Transaction {
        var transfer = try Transaction.transfer(amount: amount, to: me.address, timestamp: 1, signedBy: friend)
        transfer.height = height
        return transfer
    }

    @Test(arguments: [
        ([(1, 10), (2, 10), (3, 11), (4, 12)], [1, 2, 3, 4]),
        ([(1, 12), (2, 10), (3, 11), (4, 10)], [2, 4, 3, 1]),
        ([(1, 11), (2, 11), (3, 10)], [3, 1, 2]),
    ])
    func theyComeInBlockOrderAndTheNodesOrderWithinABlock(listed: [(amount: Int64, height: Int64)], shown: [Int64])
        throws
    {
        let page = try listed.map { try Self.transfer($0.amount, height: $0.height) }
        #expect(WatchFilter.notifiable(page, for: Self.me.address).map { page[$0.index].amount } == shown)
    }
}
