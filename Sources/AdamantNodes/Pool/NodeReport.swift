public import AdamantCore

/// Everything the pool knows about one node, for choosing it and for `adm-push nodes`.
public struct NodeReport: Sendable, Hashable {
    /// The node as configured.
    public var endpoint: NodeEndpoint
    /// The URL in use: the main one, or the alternate when only it answered.
    public var url: NodeURL
    /// The verdict of the last health check.
    public var health: NodeHealth = .unchecked
    /// From the last successful status check.
    public var status: NodeStatus?
    /// From the last successful status check; stamps transactions for this node.
    public var clock: NodeClock?
    var averageLatency = LatencyAverage()

    init(endpoint: NodeEndpoint) {
        self.endpoint = endpoint
        url = endpoint.url
    }

    /// The moving average of its response times.
    public var latency: Duration? { averageLatency.value }
}
