public import AdamantCore
import Synchronization

/// A local simulated ADAMANT network: N nodes on loopback ports sharing one ledger, blocks on a
/// timer, emulators of the two notification services (the ANS and adamant-ns), faults per node,
/// and a control endpoint. Runs in-process; the `adm-devnet` command is a thin shell around it.
public final class Devnet: Sendable {
    /// A genesis account and what it was given.
    public struct FundedAccount: Sendable {
        public let account: DevnetAccount
        public let balance: ADMAmount
    }

    public let nodeURLs: [String]
    public let controlURL: String
    public let nethash: String
    /// The ANS emulator's own account (its passphrase too, for tests).
    public let ans: DevnetAccount
    /// The adamant-ns emulator's own account, so signals can be encrypted to it (its passphrase
    /// too, for tests).
    public let ns: DevnetAccount
    /// Which notification services run.
    public let services: DevnetServices
    /// The funded accounts, then one with a zero balance.
    public let accounts: [FundedAccount]

    let chain: SharedChain
    /// What every node runs unless a fault says otherwise; `send` admits as it does.
    let nodeVersion: NodeVersion
    private let nodes: [SimulatedNode]
    private let service: ANSService
    let nsService: NSService
    private let control: HTTPServer
    private let tickers: Mutex<[Ticker]>

    /// Builds genesis, starts every node, the control endpoint and the timers.
    /// - Throws: `DevnetError` when a port cannot be bound or a fault names a missing node.
    public init(_ configuration: DevnetConfiguration) throws(DevnetError) {
        let clock = configuration.clock
        var ledger = Ledger(
            rules: Ledger.Rules(poolCapacity: configuration.poolCapacity), genesisUnixMillis: clock.unixMillis())
        var accounts = configuration.allocations.map { FundedAccount(account: $0.account, balance: $0.amount) }
        accounts += (0..<configuration.freshAccounts).map { _ in
            FundedAccount(account: .random(), balance: configuration.freshAccountBalance)
        }
        for funded in accounts {
            do { try ledger.credit(funded.account.address, units: funded.balance.units) } catch {
                throw .pastTotalSupply("the genesis allocations: \(error)")
            }
        }
        accounts.append(FundedAccount(account: .random(), balance: ADMAmount(units: 0)))
        self.accounts = accounts

        chain = SharedChain(ledger: ledger, clock: clock, log: configuration.log)
        nodeVersion = configuration.nodeVersion
        nethash = DevnetNethash.value
        ans = .random()
        service = ANSService(ANSEmulator(account: ans, mode: configuration.ansMode))
        ns = .random()
        services = configuration.services
        nsService = NSService(
            NSEmulator(account: ns, mode: configuration.nsMode, version: configuration.nodeVersion, nethash: nethash))
        // The service listens on a node's client socket before any transaction can be admitted.
        if services.runsNS { chain.listen { [nsService] in nsService.admitted($0) } }
        let limits = HTTPServer.Limits(
            connectionTimeout: configuration.connectionTimeout, maxConnections: configuration.maxConnections)
        // The control handler reaches the devnet through this box, filled once `self` exists.
        let controlTarget = ControlTarget()
        let nodes: [SimulatedNode]
        let control: HTTPServer
        do {
            nodes = try (0..<configuration.nodeCount).map { [chain, nethash] index throws(HTTPServer.StartError) in
                try SimulatedNode(
                    index: index, chain: chain, version: configuration.nodeVersion, nethash: nethash, limits: limits,
                    heartbeat: SocketHub.Heartbeat(
                        pingInterval: configuration.socketPingInterval, pingTimeout: configuration.socketPingTimeout))
            }
            control = try HTTPServer(limits: limits) { request, _ in
                controlTarget.devnet.map { ControlAPI(devnet: $0).handle(request) } ?? .hangUp
            }
        } catch {
            throw .cannotListen(error.description)
        }
        self.nodes = nodes
        self.control = control
        tickers = Mutex([])

        // Faults go in before any node listens, so each holds from the node's first request.
        do throws(DevnetError) {
            for fault in configuration.faults {
                guard nodes.indices.contains(fault.node) else { throw .fault(.noSuchNode(fault.node)) }
                do { try nodes[fault.node].add(fault.fault) } catch { throw .cannotListen(error.description) }
            }
            do {
                for node in nodes { try node.start() }
                try control.start()
            } catch {
                throw .cannotListen(error.description)
            }
        } catch {
            control.stop()
            for node in nodes { node.stop() }
            throw error
        }
        controlURL = "http://127.0.0.1:\(control.port.number)"
        nodeURLs = nodes.map(\.url)
        controlTarget.attach(self)
        startTickers(configuration)
    }

    /// Stops the timers, the control endpoint and every node. Idempotent.
    public func stop() {
        for ticker in tickers.withLock({ tickers in
            defer { tickers = [] }
            return tickers
        }) { ticker.stop() }
        control.stop()
        for node in nodes { node.stop() }
    }

    deinit { stop() }

    /// The timers hold the chain and the service, never `self`, so dropping the devnet stops them.
    private func startTickers(_ configuration: DevnetConfiguration) {
        var started = [
            Ticker(every: configuration.effectivePoolInterval) { [chain] in chain.promote() },
            Ticker(every: configuration.blockTime) { [chain] in chain.forge() },
        ]
        if services.runsANS {
            started.append(Ticker(every: configuration.ansPollInterval) { [chain, service] in service.poll(chain) })
        }
        if services.runsNS {
            started.append(Ticker(every: configuration.nsPollInterval) { [chain, nsService] in nsService.poll(chain) })
        }
        tickers.withLock { $0 = started }
    }

    // MARK: Chain

    public var height: Int64 { chain.ledger.withLock { $0.height } }

    /// Every transaction in a block, in chain order.
    public var confirmedTransactions: [Transaction] { chain.ledger.withLock { $0.chain } }

    /// Moves the queue along and forges a block now. Returns the new height.
    @discardableResult
    public func mine() -> Int64 {
        chain.promote()
        return chain.forge()
    }

    /// Credits `amount` outside any transaction (a faucet). Returns the new balance.
    /// - Throws: `DevnetError.pastTotalSupply` once the devnet would hold more than the
    ///   network's total supply (98,000,000 ADM), or for a negative amount.
    @discardableResult
    public func fund(_ address: Address, amount: ADMAmount) throws(DevnetError) -> ADMAmount {
        let balance: Int64
        do {
            balance = try chain.ledger.withLock { ledger throws(Ledger.CreditRefused) in
                try ledger.credit(address, units: amount.units)
                return ledger.account(address)?.balance ?? 0
            }
        } catch {
            throw .pastTotalSupply(error.description)
        }
        chain.log?("funded \(address) with \(amount) ADM")
        return ADMAmount(units: balance)
    }

    /// The confirmed balance of an address.
    public func balance(of address: Address) -> ADMAmount {
        ADMAmount(units: chain.ledger.withLock { $0.account(address)?.balance ?? 0 })
    }

    // MARK: Faults and request logs

    public func add(_ fault: Fault, toNode index: Int) throws(DevnetError) {
        let node = try node(index)
        do { try node.add(fault) } catch { throw .cannotListen(error.description) }
        chain.log?("node \(index): fault \(fault)")
    }

    /// Clears every fault of a node, or only those of `kind` (`delay`, `refuse`, …).
    public func clearFaults(ofNode index: Int, kind: String? = nil) throws(DevnetError) {
        let node = try node(index)
        do { try node.clearFaults(kind: kind) } catch { throw .cannotListen(error.description) }
        chain.log?("node \(index): cleared \(kind ?? "all") faults")
    }

    public func faults(ofNode index: Int) throws(DevnetError) -> [Fault] { try node(index).faults }

    /// Every request the node has seen, oldest first (the last 10,000).
    public func requests(toNode index: Int) throws(DevnetError) -> [RequestRecord] { try node(index).requests }

    public func clearRequests(toNode index: Int) throws(DevnetError) { try node(index).clearRequests() }

    /// The connections the node has accepted since it started.
    public func connectionsAccepted(byNode index: Int) throws(DevnetError) -> Int {
        try node(index).connectionsAccepted
    }

    /// Requests node `index`'s client socket has answered (polls and posts).
    public func socketRequests(toNode index: Int) throws(DevnetError) -> Int { try node(index).socketRequests }

    /// The addresses each of node `index`'s socket sessions subscribed to, one set a session
    /// (those that joined the namespace).
    public func socketSubscriptions(ofNode index: Int) throws(DevnetError) -> [Set<Address>] {
        try node(index).socketSubscriptions
    }

    private func node(_ index: Int) throws(DevnetError) -> SimulatedNode {
        guard nodes.indices.contains(index) else { throw .fault(.noSuchNode(index)) }
        return nodes[index]
    }

    // MARK: ANS

    public var ansMode: ANSMode {
        get { service.emulator.withLock { $0.mode } }
        set { service.emulator.withLock { $0.mode = newValue } }
    }

    /// Polls now, as the service's timer would: everything confirmed since the last poll is one
    /// batch. Does nothing when the ANS does not run.
    public func pollANS() { if services.runsANS { service.poll(chain) } }

    public var ansRegistrations: [ANSRegistration] { service.emulator.withLock { $0.registrations } }
    public var ansPushes: [ANSPush] { service.emulator.withLock { $0.pushes } }
}

extension SharedChain {
    func promote() {
        let dropped = ledger.withLock { $0.promote(nowUnixMillis: clock.unixMillis()) }
        for id in dropped { log?("pool dropped \(id)") }
    }

    @discardableResult
    func forge() -> Int64 {
        let block = ledger.withLock { $0.forge(nowUnixMillis: clock.unixMillis()) }
        if !block.transactionIDs.isEmpty {
            log?("block \(block.height): " + block.transactionIDs.map(\.description).joined(separator: ", "))
        }
        return block.height
    }
}

/// The ANS emulator behind its lock.
private final class ANSService: Sendable {
    let emulator: Mutex<ANSEmulator>

    init(_ emulator: ANSEmulator) { self.emulator = Mutex(emulator) }

    /// One poll; the ledger is copied out so the two locks are never held together.
    func poll(_ chain: SharedChain) {
        let snapshot = chain.ledger.withLock { $0 }
        for line in emulator.withLock({ $0.poll(snapshot) }) { chain.log?(line) }
    }
}

public enum DevnetError: Error, Sendable, CustomStringConvertible {
    case cannotListen(String)
    case fault(FaultError)
    /// Genesis or the faucet would hold more than the network's total supply.
    case pastTotalSupply(String)
    /// `send` or `storeContacts` could not make the transaction, or the node refused it (its text).
    case rejected(String)

    public var description: String {
        switch self {
        case .cannotListen(let reason), .pastTotalSupply(let reason), .rejected(let reason): reason
        case .fault(let error): error.description
        }
    }
}

/// Lets the control server, created before the devnet is, reach it once it is, without keeping
/// it alive.
private final class ControlTarget: Sendable {
    private struct Weak: Sendable { weak var devnet: Devnet? }
    private let target = Mutex(Weak())
    var devnet: Devnet? { target.withLock { $0.devnet } }
    func attach(_ devnet: Devnet) { target.withLock { $0.devnet = devnet } }
}
