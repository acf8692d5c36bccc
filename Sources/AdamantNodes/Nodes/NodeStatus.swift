public import AdamantCore

/// What `GET /api/node/status` says, across the 0.8, 0.9 and 0.10 shapes (node-api.md §1.6).
public struct NodeStatus: Sendable, Hashable, Decodable {
    public var height: Int64
    public var nethash: Nethash
    public var version: NodeVersion
    /// Whole seconds since the ADAMANT epoch, on the node's clock (every version).
    public var nodeTimestamp: Int64
    /// Milliseconds since the ADAMANT epoch (0.10+).
    public var nodeTimestampMs: Int64?

    public init(height: Int64, nethash: Nethash, version: NodeVersion, nodeTimestamp: Int64, nodeTimestampMs: Int64? = nil) {
        self.height = height
        self.nethash = nethash
        self.version = version
        self.nodeTimestamp = nodeTimestamp
        self.nodeTimestampMs = nodeTimestampMs
    }

    private enum Keys: String, CodingKey { case network, version, nodeTimestamp, nodeTimestampMs }
    private enum NetworkKeys: String, CodingKey { case height, nethash }
    private enum VersionKeys: String, CodingKey { case version }

    public init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: Keys.self)
        let network = try body.nestedContainer(keyedBy: NetworkKeys.self, forKey: .network)
        height = try network.decode(Int64.self, forKey: .height)
        nethash = try network.decode(Nethash.self, forKey: .nethash)
        version = try body.nestedContainer(keyedBy: VersionKeys.self, forKey: .version).decode(NodeVersion.self, forKey: .version)
        nodeTimestamp = try body.decode(Int64.self, forKey: .nodeTimestamp)
        nodeTimestampMs = try body.decodeIfPresent(Int64.self, forKey: .nodeTimestampMs)
    }
}
