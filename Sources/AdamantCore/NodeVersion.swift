/// A node software version, `major.minor.patch`; tags such as `v0.10.3` or `0.10.0-rc1` parse
/// to their numbers.
public struct NodeVersion: Sendable, Hashable, Comparable, StringCodable {
    /// The oldest version every official client still accepts (docs/node-api.md §3).
    public static let minimumSupported = NodeVersion(0, 8, 0)
    /// The first version with the 0.10 timestamp rules and `timestampMs`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v0_10 = NodeVersion(0, 10, 0)
    /// The newest release (mainnet's, and the devnet's default).
    public static let current = NodeVersion(0, 10, 3)

    /// The major version.
    public let major: Int
    /// The minor version: 8, 9 and 10 differ in what a node accepts.
    public let minor: Int
    /// The patch version.
    public let patch: Int

    /// The version `major.minor.patch`.
    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `1`, `1.2` or `1.2.3`, with an optional `v` and anything after a `-` or `+` ignored;
    /// nil for anything else.
    public init?(_ text: some StringProtocol) {
        var core = Substring(text)
        if core.first == "v" { core = core.dropFirst() }
        core = core.prefix { $0 != "-" && $0 != "+" }
        let numbers = core.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(numbers.count), numbers.allSatisfy({ $0.map { $0 >= 0 } ?? false }) else { return nil }
        let padded = numbers.map { $0! } + Array(repeating: 0, count: 3 - numbers.count)
        self.init(padded[0], padded[1], padded[2])
    }

    /// `major.minor.patch`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// The same, throwing for text that is not a version (for `StringCodable`).
    public init(parsing text: String) throws {
        guard let version = NodeVersion(text) else { throw NotAValue("not a version") }
        self = version
    }

    /// What this release accepts at submission time (docs/protocol.md §2.1).
    public var timestampPolicy: TimestampPolicy { self < .v0_10 ? .v0_9 : .v0_10 }

    /// Orders by major, minor, then patch.
    public static func < (lhs: NodeVersion, rhs: NodeVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
