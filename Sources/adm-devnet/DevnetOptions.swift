import AdamantCLI
import AdamantCore
import AdamantDevnet

/// Turns `adm-devnet start` options into a configuration, one clear error per bad value.
enum DevnetOptions {
    static func configuration(_ arguments: ParsedArguments) throws(CLIError) -> DevnetConfiguration {
        var configuration = DevnetConfiguration()
        if let text = arguments.value(StartOptions.nodes) {
            configuration.nodeCount = try count(StartOptions.nodes, text, in: 1...64)
        }
        if let text = arguments.value(StartOptions.fund) {
            configuration.freshAccounts = try count(StartOptions.fund, text, in: 0...10_000)
        }
        if let text = arguments.value(StartOptions.blockTime) {
            configuration.blockTime = try seconds(StartOptions.blockTime, text)
        }
        if let text = arguments.value(StartOptions.ansPoll) {
            configuration.ansPollInterval = try seconds(StartOptions.ansPoll, text)
        }
        if let text = arguments.value(StartOptions.connectionTimeout) {
            configuration.connectionTimeout = .seconds(try count(StartOptions.connectionTimeout, text, in: 1...86_400))
        }
        if let text = arguments.value(StartOptions.maxConnections) {
            configuration.maxConnections = try count(StartOptions.maxConnections, text, in: 1...10_000)
        }
        if let text = arguments.value(StartOptions.nodeVersion) {
            guard let version = NodeVersion(text) else {
                throw .usage("--node-version takes X.Y.Z, got \(text.quoted)")
            }
            configuration.nodeVersion = version
        }
        if let mode: ANSMode = try choice(StartOptions.ansMode, arguments) { configuration.ansMode = mode }
        if let text = arguments.value(StartOptions.nsPoll) {
            configuration.nsPollInterval = try seconds(StartOptions.nsPoll, text)
        }
        if let services: DevnetServices = try choice(StartOptions.service, arguments) {
            configuration.services = services
        }
        if let mode: NSMode = try choice(StartOptions.nsMode, arguments) { configuration.nsMode = mode }
        for text in arguments.values(StartOptions.account) { configuration.allocations.append(try allocation(text)) }
        for text in arguments.values(StartOptions.fault) {
            configuration.faults.append(try nodeFault(text, nodes: configuration.nodeCount))
        }
        return configuration
    }

    private static func count(_ option: SingleOption, _ text: String, in range: ClosedRange<Int>) throws(CLIError)
        -> Int
    {
        guard let number = Int(text), range.contains(number) else {
            throw .usage(
                "--\(option.spec.name) takes a whole number from \(range.lowerBound) to \(range.upperBound), got \(text.quoted)"
            )
        }
        return number
    }

    /// The case of `T` the option names, if it is given: "--x takes a, b or c" otherwise.
    private static func choice<T: RawRepresentable & CaseIterable>(_ option: SingleOption, _ arguments: ParsedArguments)
        throws(CLIError) -> T? where T.RawValue == String
    {
        guard let text = arguments.value(option) else { return nil }
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue)
            throw .usage(
                "--\(option.spec.name) takes \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), got \(text.quoted)"
            )
        }
        return value
    }

    private static func seconds(_ option: SingleOption, _ text: String) throws(CLIError) -> Duration {
        guard let seconds = SingleOption.seconds(text, in: 0.001...86_400) else {
            throw .usage("--\(option.spec.name) takes seconds from 0.001 to 86400, got \(text.quoted)")
        }
        return seconds
    }

    /// `PASSPHRASE=ADM`, split at the last `=` (a passphrase has none).
    private static func allocation(_ text: String) throws(CLIError) -> DevnetConfiguration.Allocation {
        guard let equals = text.lastIndex(of: "=") else { throw .usage("--account takes PASSPHRASE=AMOUNT") }
        let amountText = String(text[text.index(after: equals)...])
        let account: DevnetAccount
        do { account = try DevnetAccount(passphrase: String(text[..<equals])) } catch {
            throw .usage("--account: \(error)")
        }
        guard let amount = try? ADMAmount(amountText) else {
            throw .usage("--account: the amount must be ADM such as 100 or 0.5, got \(amountText.quoted)")
        }
        return DevnetConfiguration.Allocation(account, amount: amount)
    }

    /// `NODE:KIND[:ARG][@/prefix]`.
    private static func nodeFault(_ text: String, nodes: Int) throws(CLIError) -> DevnetConfiguration.NodeFault {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let node = Int(parts[0]) else {
            throw .usage("--fault takes NODE:KIND[:ARG][@/path], got \(text.quoted)")
        }
        guard (0..<nodes).contains(node) else {
            throw .usage("--fault \(text.quoted): nodes are numbered 0 to \(nodes - 1)")
        }
        do { return DevnetConfiguration.NodeFault(node: node, fault: try Fault(parsing: String(parts[1]))) } catch {
            throw .usage("--fault: \(error)")
        }
    }
}
