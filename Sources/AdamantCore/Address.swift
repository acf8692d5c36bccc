/// An ADAMANT account address: `U` followed by the decimal of a 64-bit number.
public struct Address: Sendable, Hashable, Comparable, StringCodable {
    /// The 64-bit number the address spells.
    public let number: UInt64

    /// The address of this number.
    public init(number: UInt64) { self.number = number }

    /// The address of a public key: SHA-256 of its 32 bytes, first 8 bytes little-endian.
    public init(publicKey: PublicKey) {
        number = Digest.leadingUInt64(ofSHA256: publicKey.bytes)
    }

    /// Parses `U` and 1–20 digits with no leading zero, at most 2^64 − 1. Stricter than the
    /// node (which takes 21 digits and any case): such strings never come from a key.
    public init(_ text: some StringProtocol) throws(AddressError) {
        let utf8 = Array(text.utf8)
        guard utf8.first == UInt8(ascii: "U") else { throw .format }
        let digits = utf8.dropFirst()
        guard (1...20).contains(digits.count),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw .format }
        guard digits.count == 1 || digits.first != UInt8(ascii: "0") else { throw .leadingZero }
        guard let number = UInt64(String(decoding: digits, as: UTF8.self)) else { throw .outOfRange }
        self.number = number
    }

    /// `U` and the number, as nodes and clients write it.
    public var description: String { "U\(number)" }

    /// The same, for `StringCodable`.
    public init(parsing text: String) throws { try self.init(text) }

    /// Orders by number.
    public static func < (lhs: Address, rhs: Address) -> Bool { lhs.number < rhs.number }

    /// The 8 bytes a transaction signs for its recipient: the number, big-endian.
    var signedBytes: [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: number >> (8 * $0)) } }
}

/// Why text is not an address.
public enum AddressError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `format`: not `U` and 1 to 20 digits. `leadingZero`: a zero right after the `U`.
    /// `outOfRange`: a number of 2^64 or more.
    case format, leadingZero, outOfRange

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .format: "addressFormat"
        case .leadingZero: "addressLeadingZero"
        case .outOfRange: "addressOutOfRange"
        }
    }

    /// What a valid address looks like.
    public var description: String {
        switch self {
        case .format: "an ADAMANT address is U followed by 1 to 20 digits, like U6687642817984673870"
        case .leadingZero: "an ADAMANT address has no leading zero after the U"
        case .outOfRange: "an ADAMANT address number must be below 2^64 (at most U18446744073709551615)"
        }
    }
}
