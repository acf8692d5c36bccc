/// A configured node: its URL and, for some built-in nodes, a raw-IP URL to try when the
/// main one fails (DNS or certificate trouble), as the iOS app does.
public struct NodeEndpoint: Sendable, Hashable {
    /// The node's URL.
    public var url: NodeURL
    /// A raw-IP URL tried when the main one fails; nil for nodes the user gave.
    public var alternate: NodeURL?

    /// A node at `url`, with `alternate` to fall back on.
    public init(url: NodeURL, alternate: NodeURL? = nil) {
        self.url = url
        self.alternate = alternate
    }

    /// The main URL, then the alternate.
    var urls: [NodeURL] { [url] + (alternate.map { [$0] } ?? []) }
}

extension NodeEndpoint {
    /// The iOS app's default ADM nodes (adamant-iOS 3.10, docs/node-api.md §3), with their
    /// alternate IP URLs.
    public static let mainnet: [NodeEndpoint] = [
        ("https://clown.adamant.im", nil),
        ("https://lake.adamant.im", nil),
        ("https://endless.adamant.im", "http://149.102.157.15:36666"),
        ("https://bid.adamant.im", nil),
        ("https://unusual.adamant.im", nil),
        ("https://debate.adamant.im", "http://95.216.161.113:36666"),
        ("http://78.47.205.206:36666", nil),
        ("http://5.161.53.74:36666", nil),
        ("http://184.94.215.92:45555", nil),
        ("https://node1.adamant.business", "http://194.233.75.29:45555"),
        ("https://node2.blockchain2fa.io", nil),
        ("https://phecda.adm.im", "http://46.250.234.248:36666"),
        ("https://tegmine.adm.im", nil),
        ("https://tauri.adm.im", "http://154.26.159.245:36666"),
        ("https://dschubba.adm.im", nil),
        ("https://tauri.bbry.org", "http://54.197.36.175:36666"),
        ("https://endless.bbry.org", "http://54.197.36.175:46666"),
        ("https://debate.bbry.org", "http://54.197.36.175:56666"),
    ].map { url, alternate in
        // Constants checked by the tests.
        NodeEndpoint(url: try! NodeURL(url), alternate: alternate.map { try! NodeURL($0) })
    }

    /// ADAMANT's published onion services of mainnet nodes (adamant-wallets, `tor.nodes`),
    /// reachable only through Tor, and then without leaving it through an exit.
    public static let mainnetOnion: [NodeEndpoint] = [
        "http://37g5to2z6bdoeegun4hms2hvkfbdxh4rcon4e3p267wtfkh4ji2ns6id.onion",
        "http://fqjcvsibnbwhlwxndzqzziapiwoidgn24avfiauu4wo2fc3yyiy2qcid.onion",
        "http://omhrhpc45njpgzp4fggtndazaodwuwvb5in6hsn3k7tvaqennmfaa2qd.onion",
        "http://uxu6vnnrrnl7tmo7i657yvs4jbgdz734xvufryoi326az5dzufuwboad.onion",
        "http://rukehjd2yalzgny7mdjqtzown2mazsaeh4zr7zjdg4l5afkgc3z2kgqd.onion",
    ].map { NodeEndpoint(url: try! NodeURL($0)) }  // constants checked by the tests
}
