import AdamantCore

/// An option a command accepts.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable { case flag, value(placeholder: String), repeatable(placeholder: String) }

    public let name: String
    public let short: Character?
    public let kind: Kind
    public let help: String

    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .flag, help: help)
    }

    public static func value(_ name: String, _ placeholder: String, help: String) -> OptionSpec {
        OptionSpec(name: name, short: nil, kind: .value(placeholder: placeholder), help: help)
    }

    public static func repeatable(_ name: String, _ placeholder: String, help: String) -> OptionSpec {
        OptionSpec(name: name, short: nil, kind: .repeatable(placeholder: placeholder), help: help)
    }

    var takesValue: Bool { if case .flag = kind { false } else { true } }
}

/// What a command line said, after checking it against the command's options.
public struct ParsedArguments: Sendable {
    public private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Parses `--name value`, `--name=value`, short flags and `--`; repeating a single-value
    /// option is an error, so a mistyped script fails instead of silently taking the last one.
    public init(_ arguments: [String], options: [OptionSpec]) throws(CLIError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positional += remaining
                break
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                positional.append(argument)
                continue
            }
            let (name, inlineValue) = Self.split(argument)
            guard let spec = Self.find(name, in: options) else {
                throw .usage("unknown option '\(name)'\(Self.suggestion(for: name, in: options))")
            }
            guard spec.takesValue else {
                guard inlineValue == nil else { throw .usage("'--\(spec.name)' takes no value") }
                flags.insert(spec.name)
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw .usage("'--\(spec.name)' needs a value")
            }
            if case .value = spec.kind, values[spec.name] != nil {
                throw .usage("'--\(spec.name)' is given more than once")
            }
            values[spec.name, default: []].append(value)
        }
    }

    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func find(_ name: String, in options: [OptionSpec]) -> OptionSpec? {
        if name.hasPrefix("--") { return options.first { "--\($0.name)" == name } }
        return options.first { $0.short.map { "-\($0)" } == name }
    }

    private static func suggestion(for name: String, in options: [OptionSpec]) -> String {
        guard let nearest = Spelling.nearest(to: name.drop { $0 == "-" }, in: options.map(\.name)) else { return "" }
        return " (did you mean '--\(nearest)'?)"
    }
}

