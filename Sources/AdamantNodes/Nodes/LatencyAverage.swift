/// An exponential moving average of a node's response times: recent samples count most, and
/// one slow answer moves the node down without erasing its history.
public struct LatencyAverage: Sendable, Hashable {
    /// How much a new sample counts.
    static let weight = 0.3

    /// The average so far; nil before the first sample.
    public private(set) var value: Duration?

    /// An average with no samples.
    public init() {}

    /// Counts one response time.
    public mutating func add(_ sample: Duration) {
        value = value.map { $0 * (1 - Self.weight) + sample * Self.weight } ?? sample
    }
}
