public import AdamantCore

/// Which emulated notification services run beside the nodes.
public enum DevnetServices: String, Sendable, CaseIterable {
    /// The iOS app's C# service only.
    case ans
    /// The web and Android apps' TypeScript service (adamant-ns) only.
    case ns
    /// Both, each with its own account.
    case both

    /// Whether the ANS emulator runs.
    public var runsANS: Bool { self != .ns }
    /// Whether the adamant-ns emulator runs.
    public var runsNS: Bool { self != .ans }
}

/// Everything `adm-devnet start` takes.
public struct DevnetConfiguration: Sendable {
    /// An account funded at genesis.
    public struct Allocation: Sendable {
        public let account: DevnetAccount
        public let amount: ADMAmount
        public init(_ account: DevnetAccount, amount: ADMAmount) {
            self.account = account
            self.amount = amount
        }
    }

    /// A fault one node has from the start.
    public struct NodeFault: Sendable {
        public let node: Int
        public let fault: Fault
        public init(node: Int, fault: Fault) {
            self.node = node
            self.fault = fault
        }
    }

    public var nodeCount = 3
    public var blockTime: Duration = .seconds(5)
    /// How often the pool moves queued transactions to unconfirmed: the node's 1 s, or the
    /// block time if that is shorter.
    public var poolInterval: Duration?
    public var allocations: [Allocation] = []
    /// Fresh random accounts with `freshAccountBalance` each.
    public var freshAccounts = 0
    public var freshAccountBalance = ADMAmount(units: 100 * ADMAmount.unitsPerADM)
    public var nodeVersion = NodeVersion.current
    public var ansMode = ANSMode.csharp
    public var ansPollInterval: Duration = .seconds(10)
    /// Which notification services run; a service that does not run neither reads the chain
    /// nor appears in the summary.
    public var services = DevnetServices.both
    /// How the adamant-ns emulator applies signals.
    public var nsMode = NSMode.replay
    /// How often the adamant-ns emulator polls the chain; the service polls every 3 s.
    public var nsPollInterval: Duration = .seconds(3)
    public var faults: [NodeFault] = []
    public var poolCapacity = 1000
    /// Each server closes a connection idle this long, and lets go of a request a fault holds
    /// unanswered after this long (whole seconds, rounded up).
    public var connectionTimeout: Duration = .seconds(30)
    /// Connections each server takes at once; beyond them it answers 503 and closes.
    public var maxConnections = 256
    /// Each node's client socket pings this often, and forgets a client whose pong is this late.
    public var socketPingInterval: Duration = .seconds(25)
    public var socketPingTimeout: Duration = .seconds(20)
    /// Where the devnet reads the time; tests can pass their own.
    public var clock: any WallClock = SystemWallClock()
    /// Receives one line per submission, block and ANS action; nil for silence.
    public var log: (@Sendable (String) -> Void)?

    public init() {}

    var effectivePoolInterval: Duration { poolInterval ?? min(.seconds(1), blockTime) }
}
