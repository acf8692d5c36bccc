import AdamantCore

/// How one simulated node presents itself and behaves: its version and network, and the
/// faults that change what it says rather than how it talks.
struct NodeProfile: Sendable {
    var version: NodeVersion
    var nethash: String
    /// Blocks this node is behind the network; it neither reports nor serves them.
    var heightLag: Int64 = 0
    /// Added to the real clock: `nodeTimestamp` and the timestamp checks use the skewed time.
    var clockSkewMillis: Int64 = 0
    /// Returned transactions carry one flipped byte in the message or the signature.
    var tampersTransactions = false
    /// Submissions are answered as accepted and thrown away.
    var dropsSubmissions = false
    /// Submissions go into the pool and the POST is never answered.
    var hangsAfterAccepting = false
    /// The port of the node's client socket, said in `/api/node/status` `wsClient`.
    var socketPort: UInt16?

    /// The height this node reports and serves, never below genesis.
    func visibleHeight(of ledger: Ledger) -> Int64 { max(1, ledger.height - heightLag) }
}

/// The devnet's network identifier: not mainnet's or testnet's, so a careful client that checks
/// the nethash can tell it apart.
enum DevnetNethash {
    static let value = Hex.encode(Digest.sha256(Array("adm-devnet".utf8)))
}
