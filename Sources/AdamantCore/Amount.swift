/// An amount of ADM in its smallest unit, 1e-8 ADM. Parsed and printed as exact decimals,
/// never through floating point.
public struct ADMAmount: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// 1 ADM in units: 10^8.
    public static let unitsPerADM: Int64 = 100_000_000
    /// The total supply, the node's upper bound for any amount.
    public static let totalSupply = ADMAmount(units: 9_800_000_000_000_000)

    /// The amount in 1e-8 ADM, the unit of every amount and fee on chain.
    public let units: Int64

    /// An amount of this many units.
    public init(units: Int64) { self.units = units }

    /// Parses a decimal such as `"1"`, `"0.5"` or `"0.00000001"`: digits, at most one point and
    /// eight decimals, no sign or exponent, at most the total supply.
    public init(_ text: some StringProtocol) throws(AmountError) {
        let parts = String(text).split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        let isDigits: (Substring) -> Bool = { $0.allSatisfy { ("0"..."9").contains($0) } }
        guard !whole.isEmpty, isDigits(whole), isDigits(fraction), parts.count == 1 || !fraction.isEmpty else {
            throw .format
        }
        guard fraction.count <= 8 else { throw .tooPrecise }
        let paddedFraction = fraction + String(repeating: "0", count: 8 - fraction.count)
        guard whole.count <= 8, let wholeUnits = Int64(whole), let fractionUnits = Int64(paddedFraction) else {
            throw .outOfRange
        }
        let units = wholeUnits * Self.unitsPerADM + fractionUnits
        guard units <= Self.totalSupply.units else { throw .outOfRange }
        self.units = units
    }

    /// Plain decimal ADM with no trailing zeros: `0.49`, `100`, `0.00000001` (the node's
    /// `toFixed()` form, as in its balance error).
    public var description: String {
        let sign = units < 0 ? "-" : ""
        let magnitude = units.magnitude
        let whole = magnitude / UInt64(Self.unitsPerADM)
        let fraction = magnitude % UInt64(Self.unitsPerADM)
        guard fraction > 0 else { return "\(sign)\(whole)" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 8 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }

    /// Orders by units.
    public static func < (lhs: ADMAmount, rhs: ADMAmount) -> Bool { lhs.units < rhs.units }

    /// Decodes an integer of units given as a JSON number or a string of digits (balances
    /// come back as strings).
    public init(from decoder: any Decoder) throws {
        units = try IntegerOrString<Int64>(from: decoder).value
    }

    /// Encodes the units as a JSON number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(units)
    }
}

/// Why text is not an ADM amount.
public enum AmountError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `format`: not a plain decimal. `tooPrecise`: more than 8 decimals. `outOfRange`: more than
    /// the total supply.
    case format, tooPrecise, outOfRange

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .format: "amountFormat"
        case .tooPrecise: "amountTooPrecise"
        case .outOfRange: "amountOutOfRange"
        }
    }

    /// What a valid amount looks like.
    public var description: String {
        switch self {
        case .format: "an ADM amount is a plain decimal such as 1 or 0.5 (no sign, exponent or thousands separator)"
        case .tooPrecise: "an ADM amount has at most 8 decimals"
        case .outOfRange: "an ADM amount cannot exceed the total supply of 98000000 ADM"
        }
    }
}
