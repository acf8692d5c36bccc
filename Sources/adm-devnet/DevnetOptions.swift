import AdamantCLI
import AdamantCore
import AdamantDevnet

/// Turns `adm-devnet start` options into a configuration, one clear error per bad value.
enum DevnetOptions {
    static func configuration(_ arguments: ParsedArguments) throws(CLIError) -> DevnetConfiguration {
        var configuration = DevnetConfiguration()
        if let text = arguments.value("nodes") { configuration.nodeCount = try count("nodes", text, in: 1...64) }
        if let text = arguments.value("fund") { configuration.freshAccounts = try count("fund", text, in: 0...10_000) }
        if let text = arguments.value("block-time") { configuration.blockTime = try seconds("block-time", text) }
        if let text = arguments.value("ans-poll") { configuration.ansPollInterval = try seconds("ans-poll", text) }
        if let text = arguments.value("connection-timeout") {
            configuration.connectionTimeout = .seconds(try count("connection-timeout", text, in: 1...86_400))
        }
        if let text = arguments.value("max-connections") { configuration.maxConnections = try count("max-connections", text, in: 1...10_000) }
        if let text = arguments.value("node-version") {
            guard let version = NodeVersion(text) else { throw .usage("--node-version takes X.Y.Z, got '\(text)'") }
            configuration.nodeVersion = version
        }
        if let text = arguments.value("ans-mode") {
            guard let mode = ANSMode(rawValue: text) else { throw .usage("--ans-mode takes csharp or ordered, got '\(text)'") }
            configuration.ansMode = mode
        }
        for text in arguments.values("account") { configuration.allocations.append(try allocation(text)) }
        for text in arguments.values("fault") {
            configuration.faults.append(try nodeFault(text, nodes: configuration.nodeCount))
        }
        return configuration
    }

    private static func count(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw .usage("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }

    private static func seconds(_ name: String, _ text: String) throws(CLIError) -> Duration {
        guard let seconds = Double(text), seconds.isFinite, (0.001...86_400).contains(seconds) else {
            throw .usage("--\(name) takes seconds from 0.001 to 86400, got '\(text)'")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
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
            throw .usage("--account: the amount must be ADM such as 100 or 0.5, got '\(amountText)'")
        }
        return DevnetConfiguration.Allocation(account, amount: amount)
    }

    /// `NODE:KIND[:ARG][@/prefix]`.
    private static func nodeFault(_ text: String, nodes: Int) throws(CLIError) -> DevnetConfiguration.NodeFault {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let node = Int(parts[0]) else { throw .usage("--fault takes NODE:KIND[:ARG][@/path], got '\(text)'") }
        guard (0..<nodes).contains(node) else { throw .usage("--fault \(text): nodes are numbered 0 to \(nodes - 1)") }
        do { return DevnetConfiguration.NodeFault(node: node, fault: try Fault(parsing: String(parts[1]))) } catch {
            throw .usage("--fault: \(error)")
        }
    }
}
