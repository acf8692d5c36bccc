public import AdamantCLI
import AdamantCore
import AdamantNodes

/// `nodes`: checks every configured node and says which can be used, and why not.
public struct NodesCommand: Command {
    public static let info = CommandInfo(
        name: "nodes",
        overview: "Check the configured nodes: status, height, version, latency and clock.",
        options: NodeOptions.options + [json, OutboxOptions.home],
        discussion:
            "CLOCK is the node's clock against this machine's: +60.0 s for a node a minute ahead (in --json, clockDeltaMs is this machine's minus the node's).\n"
            + NodeOptions.help + "\nExits 69 when no node is usable.")
    static let json = Flag("json", help: "Print {\"nodes\": [...]} as JSON.")

    let arguments: ParsedArguments

    public init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else {
            throw .usage("unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional))")
        }
        self.arguments = arguments
    }

    public func run(_ context: Context) async throws(CLIError) -> ExitCode {
        CurlTransport.startLoading()  // while the node list is read and the pool set up
        let pool = try await NodeOptions.pool(arguments, context) { context.output.error("warning: " + $0) }
        let reports = await pool.checkHealth()
        HealthCache.save(pool, home: try? OutboxOptions.homeDirectory(arguments, context))
        let rows = reports.map { Row($0, route: pool.route.hop(to: $0.url)) }
        if arguments.flag(Self.json) {
            context.output.printJSON(["nodes": rows])
        } else {
            for line in Row.table(rows) { context.output.print(line) }
        }
        return reports.contains { $0.health.isUsable } ? .success : .unavailable
    }
}

/// One node as `nodes` shows it.
struct Row: Encodable {
    let url: String
    let status: String
    let reason: String?
    let height: Int64?
    let version: String?
    let latencyMs: Int?
    /// `direct`, or the proxy the requests go through.
    let route: String
    /// The environment variable that names the proxy, when one does.
    let routeVariable: String?
    /// Local clock minus the node's: positive when this machine is ahead.
    let clockDeltaMs: Int64?

    init(_ report: NodeReport, route: ProxyHop) {
        switch route {
        case .direct: (self.route, routeVariable) = ("direct", nil)
        case .proxy(let proxy): (self.route, routeVariable) = (proxy.description, nil)
        case .environmentProxy(let variable, let proxy):
            (self.route, routeVariable) = (proxy?.description ?? "a proxy", variable)
        }
        url = report.url.description
        status = report.health.name
        reason = report.health == .usable ? nil : report.health.description  // a clock off is said, too
        height = report.status?.height
        version = report.status?.version.description
        latencyMs = report.latency.map { Int($0 / .milliseconds(1)) }
        clockDeltaMs = report.clock?.deltaMillis
    }

    /// The node's clock against this machine's, as `+1.2 s` (the node ahead) or `-0.4 s`,
    /// to the tenth, from `clockDeltaMs` (this machine's minus the node's), so the column reads
    /// as the reason beside it does ("60.0 s ahead").
    static func nodeClock(_ localMinusNode: Int64) -> String {
        let tenths = (Double(localMinusNode.magnitude) / 100).rounded()
        return (localMinusNode > 0 ? "-" : "+") + "\(Int(tenths) / 10).\(Int(tenths) % 10) s"
    }

    static func table(_ rows: [Row]) -> [String] {
        let header = ["URL", "STATUS", "HEIGHT", "VERSION", "LATENCY", "ROUTE", "CLOCK", "WHY"]
        let cells = rows.map { row in
            [
                row.url, row.status, row.height.map(String.init) ?? "-", row.version ?? "-",
                row.latencyMs.map { "\($0) ms" } ?? "-",
                row.route == "direct" ? "direct" : "via \(row.route)" + (row.routeVariable.map { " (\($0))" } ?? ""),
                row.clockDeltaMs.map(Self.nodeClock) ?? "-",
                row.reason ?? "",
            ]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        return ([header] + cells).map { line in
            zip(line, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
