public import AdamantCore

/// What `GET /api/node/status` says, across the 0.8, 0.9 and 0.10 shapes (docs/node-api.md §1.6).
public struct NodeStatus: Sendable, Hashable, Decodable {
    /// The node's chain height.
    public var height: Int64
    /// The network it is on.
    public var nethash: Nethash
    /// The node software's version.
    public var version: NodeVersion
    /// Whole seconds since the ADAMANT epoch, on the node's clock (every version).
    public var nodeTimestamp: Int64
    /// Milliseconds since the ADAMANT epoch (0.10+).
    public var nodeTimestampMs: Int64?
    /// The port of the node's client socket, when `wsClient` says it is enabled; nil for a node
    /// that is only polled.
    public var socketPort: UInt16?

    /// A status from its parts (for tests and the devnet).
    public init(
        height: Int64, nethash: Nethash, version: NodeVersion, nodeTimestamp: Int64, nodeTimestampMs: Int64? = nil,
        socketPort: UInt16? = nil
    ) {
        self.height = height
        self.nethash = nethash
        self.version = version
        self.nodeTimestamp = nodeTimestamp
        self.nodeTimestampMs = nodeTimestampMs
        self.socketPort = socketPort
    }

    private enum Keys: String, CodingKey { case network, version, nodeTimestamp, nodeTimestampMs, wsClient }
    private enum SocketKeys: String, CodingKey { case enabled, port }
    private enum NetworkKeys: String, CodingKey { case height, nethash }
    private enum VersionKeys: String, CodingKey { case version }

    /// Every number is range-checked: a node that sends nonsense gets a decoding error (and
    /// is set aside with it), never arithmetic on the nonsense.
    public init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: Keys.self)
        let network = try body.nestedContainer(keyedBy: NetworkKeys.self, forKey: .network)
        height = try network.decode(Int64.self, forKey: .height)
        guard Plausible.heights.contains(height) else {
            throw DecodingError.dataCorruptedError(
                forKey: .height, in: network, debugDescription: "\(height) is not a block height")
        }
        nethash = try network.decode(Nethash.self, forKey: .nethash)
        version = try body.nestedContainer(keyedBy: VersionKeys.self, forKey: .version).decode(
            NodeVersion.self, forKey: .version)
        nodeTimestamp = try body.decode(Int64.self, forKey: .nodeTimestamp)
        guard AdamantTime.timestampRange.contains(nodeTimestamp) else {
            throw DecodingError.dataCorruptedError(
                forKey: .nodeTimestamp, in: body,
                debugDescription: "\(nodeTimestamp) is not an ADAMANT timestamp (seconds since 2017, 32 bits)")
        }
        nodeTimestampMs = try body.decodeIfPresent(Int64.self, forKey: .nodeTimestampMs)
        if let millis = nodeTimestampMs {
            guard AdamantTime.millisRange.contains(millis) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .nodeTimestampMs, in: body,
                    debugDescription: "\(millis) is not an ADAMANT time in milliseconds")
            }
            // Both are read from one clock at one moment; apart, neither can be trusted.
            guard abs(millis / 1000 - nodeTimestamp) <= 1 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .nodeTimestampMs, in: body,
                    debugDescription: "\(millis) ms disagrees with nodeTimestamp \(nodeTimestamp) s")
            }
        }
        // A socket said wrongly only costs the socket: the node is polled as before.
        if let socket = try? body.nestedContainer(keyedBy: SocketKeys.self, forKey: .wsClient),
            (try? socket.decode(Bool.self, forKey: .enabled)) == true,
            let port = try? socket.decode(Int.self, forKey: .port), (1...65_535).contains(port)
        {
            socketPort = UInt16(port)
        }
    }
}

/// The range a number from a node must fall in before anything computes with it (timestamps:
/// `AdamantTime.timestampRange` and `millisRange`).
enum Plausible {
    /// From the genesis block up to 2^31: a block every 5 s reaches that in 340 years.
    static let heights: ClosedRange<Int64> = 1...(1 << 31)
}
