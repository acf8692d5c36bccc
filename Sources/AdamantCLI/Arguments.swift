import AdamantCore

/// What a command line said, after checking it against the command's declared options.
public struct ParsedArguments: Sendable {
    public private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private let declared: Set<String>

    public func flag(_ flag: Flag) -> Bool { flags.contains(checked(flag)) }
    public func value(_ option: SingleOption) -> String? { values[checked(option)]?.last }
    public func values(_ option: RepeatableOption) -> [String] { values[checked(option)] ?? [] }

    /// Parses `--name value`, `--name=value`, short flags and `--`; repeating a single-value
    /// option is an error, so a mistyped script fails instead of silently taking the last one.
    public init(_ arguments: [String], options: [OptionSpec]) throws(CLIError) {
        declared = Set(options.map(\.name))
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
                throw .usage("unknown option \(name.quoted)\(Self.suggestion(for: name, in: options))")
            }
            guard spec.takesValue else {
                guard inlineValue == nil else { throw .usage("'--\(spec.name)' takes no value") }
                flags.insert(spec.name)
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw .usage("'--\(spec.name)' needs a value")
            }
            if spec.kind == .single, values[spec.name] != nil {
                throw .usage("'--\(spec.name)' is given more than once")
            }
            if let allowed = spec.allowedValues, !allowed.contains(value) {
                throw .usage("'--\(spec.name)' takes \(Self.list(allowed)), got \(value.quoted)")
            }
            values[spec.name, default: []].append(value)
        }
    }

    /// Looking up an option the command never declared is a programming mistake, caught by
    /// any test that reaches it.
    private func checked(_ option: some DeclaredOption) -> String {
        assert(declared.contains(option.spec.name), "--\(option.spec.name) is not declared by this command")
        return option.spec.name
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

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        return words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
    }
}
