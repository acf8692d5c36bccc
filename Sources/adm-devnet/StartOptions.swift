import AdamantCLI
import AdamantDevnet

/// The options of `adm-devnet start`, declared once for parsing, usage and help.
enum StartOptions {
    static let nodes = SingleOption("nodes", valueName: "n", help: "Number of nodes (default 3).")
    static let blockTime = SingleOption(
        "block-time", valueName: "seconds", help: "A block every this many seconds, fractions allowed (default 5).")
    static let fund = SingleOption("fund", valueName: "n", help: "This many fresh accounts with 100 ADM each.")
    static let account = RepeatableOption(
        "account", valueName: "passphrase=adm",
        help: "An account funded at genesis. Test accounts only: argv is visible to every local user.")
    static let nodeVersion = SingleOption(
        "node-version", valueName: "x.y.z",
        help: "Node release to behave as: 0.10.3 (default), 0.9.0 (old timestamp rules), 0.8.x (old status).")
    static let ansMode = SingleOption(
        "ans-mode", valueName: "mode", allowedValues: ANSMode.allCases.map(\.rawValue),
        help: "csharp (default: each poll applies all adds, then all removes) or ordered (chain order).")
    static let ansPoll = SingleOption("ans-poll", valueName: "seconds", help: "ANS poll interval (default 10).")
    static let service = SingleOption(
        "service", valueName: "which", allowedValues: DevnetServices.allCases.map(\.rawValue),
        help:
            "Notification services to run: ans (the iOS app's), ns (adamant-ns, the web and Android apps'), or both (default)."
    )
    static let nsMode = SingleOption(
        "ns-mode", valueName: "mode", allowedValues: NSMode.allCases.map(\.rawValue),
        help:
            "replay (default: each signal at admission and again by each poll that reads it, newest first) or ordered (once, in chain order)."
    )
    static let nsPoll = SingleOption("ns-poll", valueName: "seconds", help: "adamant-ns poll interval (default 3).")
    static let connectionTimeout = SingleOption(
        "connection-timeout", valueName: "seconds",
        help: "Close a connection idle this long, or held unanswered by a fault (default 30).")
    static let maxConnections = SingleOption(
        "max-connections", valueName: "n",
        help: "Connections each server takes at once; beyond them it answers 503 (default 256).")
    static let fault = RepeatableOption(
        "fault", valueName: "node:kind[:arg][@/path]", help: "A fault on node NODE (0-based) from the start; see below."
    )
    static let quiet = Flag(
        "quiet",
        help: "Print only the JSON line (otherwise submissions, blocks and the services' actions go to stderr).")

    static let all: [any DeclaredOption] = [
        nodes, blockTime, fund, account, nodeVersion, ansMode, ansPoll, service, nsMode, nsPoll, connectionTimeout,
        maxConnections, fault, quiet,
    ]
}
