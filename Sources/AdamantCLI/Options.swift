/// An option as declared once: parsing, the usage line, help, shell completions and man pages
/// are all generated from it.
public struct OptionSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `--name`, present or not.
        case flag
        /// `--name value`, at most once.
        case single
        /// `--name value`, any number of times.
        case repeatable
    }

    public let name: String
    public let short: Character?
    public let kind: Kind
    /// What the value is called in usage and help (`<url>`); nil for a flag.
    public let valueName: String?
    /// The only values accepted, when there is a fixed list.
    public let allowedValues: [String]?
    /// What the value names, where a shell can offer candidates for it; a fixed list is
    /// `allowedValues` instead.
    public let valueKind: ValueKind?
    public let help: String

    /// Only what a completion can list; any other value is typed by hand.
    public enum ValueKind: Sendable, Hashable {
        case file
        case directory
    }

    public var takesValue: Bool { kind != .flag }
}

/// A declared option of some kind; commands keep them as static values and look arguments up
/// by them, so a misspelt option is a compile error rather than a silently absent value.
public protocol DeclaredOption: Sendable {
    var spec: OptionSpec { get }
}

public struct Flag: DeclaredOption {
    public let spec: OptionSpec

    public init(_ name: String, short: Character? = nil, help: String) {
        spec = OptionSpec(
            name: name, short: short, kind: .flag, valueName: nil, allowedValues: nil, valueKind: nil, help: help)
    }
}

public struct SingleOption: DeclaredOption {
    public let spec: OptionSpec

    public init(
        _ name: String, valueName: String, allowedValues: [String]? = nil, valueKind: OptionSpec.ValueKind? = nil,
        help: String
    ) {
        spec = OptionSpec(
            name: name, short: nil, kind: .single, valueName: valueName, allowedValues: allowedValues,
            valueKind: valueKind, help: help)
    }
}

public struct RepeatableOption: DeclaredOption {
    public let spec: OptionSpec

    public init(_ name: String, valueName: String, valueKind: OptionSpec.ValueKind? = nil, help: String) {
        spec = OptionSpec(
            name: name, short: nil, kind: .repeatable, valueName: valueName, allowedValues: nil, valueKind: valueKind,
            help: help)
    }
}

extension SingleOption {
    /// A value in seconds written the plain way, digits with an optional decimal part, within
    /// `range`; nil otherwise. `Double(_:)` alone would also take `0x10`, `1e3`, `nan` and `inf`.
    public static func seconds(_ text: String, in range: ClosedRange<Double>) -> Duration? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.contains(where: { !$0.isEmpty }),
            parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let value = Double(text), range.contains(value)
        else { return nil }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
