import AdamantCore

/// The node release a simulated node behaves as: its status shape, its timestamp rules and
/// the wording of a few errors change between 0.8, 0.9 and 0.10.
public struct NodeVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int, minor: Int, patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        (self.major, self.minor, self.patch) = (major, minor, patch)
    }

    /// Parses `X.Y.Z`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let major = parts[0], let minor = parts[1], let patch = parts[2],
              major >= 0, minor >= 0, patch >= 0
        else { return nil }
        self.init(major, minor, patch)
    }

    /// What mainnet runs today.
    public static let current = NodeVersion(0, 10, 3)

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: NodeVersion, rhs: NodeVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    var timestampPolicy: TimestampPolicy { self < NodeVersion(0, 10, 0) ? .v0_9 : .v0_10 }

    /// 0.10 renamed the int32 range error.
    var int32RangeMessage: String {
        timestampPolicy == .v0_10
            ? "Invalid transaction timestamp. Timestamp is not within the signed int32 range"
            : "Invalid transaction timestamp. Timestamp is not in the int32 range"
    }
}
