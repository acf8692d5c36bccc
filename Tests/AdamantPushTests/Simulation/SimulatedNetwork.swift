import AdamantCore

@testable import AdamantPush

/// A signal transaction in the simulated network.
struct SimSignal: Hashable {
    let id: UInt64
    let sender: Int
    let token: String
    let provider: PushProvider
    let action: PushAction
}

/// Blocks, one shared pool (where a transaction waits some blocks, or is silently dropped), and
/// the notification service polling every few blocks with either rule set.
struct SimulatedNetwork {
    let mode: ANSModeModel
    let pollEvery: Int64
    private(set) var height: Int64 = 1
    private(set) var blocks: [Int64: [SimSignal]] = [:]
    /// Indexes of `blocks`: where each transaction landed, and each sender's signals in order.
    private var landedAt: [UInt64: Int64] = [:]
    private var bySender: [Int: [(signal: SimSignal, height: Int64)]] = [:]
    /// Pooled transactions and the height they will be forged at (nil: dropped, never lands).
    private(set) var pool: [(signal: SimSignal, landsAt: Int64?)] = []
    private(set) var registry: [(sender: Int, token: String, provider: PushProvider)] = []
    private var polledUpTo: Int64 = 1
    private var nextID: UInt64 = 1

    init(mode: ANSModeModel, pollEvery: Int64) {
        self.mode = mode
        self.pollEvery = pollEvery
    }

    mutating func newID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    /// Into the pool: forged after `delay` blocks, or never.
    mutating func accept(_ signal: SimSignal, delay: Int64?) {
        pool.append((signal, delay.map { height + max(1, $0) }))
    }

    func hasPooled(from sender: Int) -> Bool { pool.contains { $0.signal.sender == sender && $0.landsAt != nil } }

    func isPooled(_ id: UInt64) -> Bool { pool.contains { $0.signal.id == id && $0.landsAt != nil } }

    func blockHeight(of id: UInt64) -> Int64? { landedAt[id] }

    func signals(from sender: Int) -> [(signal: SimSignal, height: Int64)] { bySender[sender] ?? [] }

    /// One block; the service polls on its own schedule.
    mutating func forge() {
        height += 1
        let due = pool.filter { $0.landsAt == height }.map(\.signal)
        pool.removeAll { $0.landsAt == height }
        if !due.isEmpty { blocks[height] = due }
        for signal in due {
            landedAt[signal.id] = height
            bySender[signal.sender, default: []].append((signal, height))
        }
        if height % pollEvery == 0 { poll() }
    }

    /// Everything in blocks since the last poll, as one batch.
    mutating func poll() {
        let batch = (polledUpTo + 1...max(polledUpTo + 1, height)).flatMap { blocks[$0] ?? [] }
        polledUpTo = height
        switch mode {
        case .ordered:
            for signal in batch {
                registry.removeAll { $0.sender == signal.sender && $0.token == signal.token }
                if signal.action == .add { registry.append((signal.sender, signal.token, signal.provider)) }
            }
        case .csharp:
            let adds = batch.filter { $0.action == .add }
            let removes = batch.filter { $0.action == .remove }
            let fresh = adds.filter { add in
                !registry.contains { $0.sender == add.sender && $0.token == add.token && $0.provider == add.provider }
            }
            if fresh.isEmpty && !adds.isEmpty { return }  // duplicates only: the removes are lost
            registry += fresh.map { ($0.sender, $0.token, $0.provider) }
            for remove in removes { registry.removeAll { $0.sender == remove.sender && $0.token == remove.token } }
        }
    }

    /// What the service holds for `sender`: token → providers.
    func registrations(of sender: Int) -> [String: Set<PushProvider>] {
        registry.filter { $0.sender == sender }.reduce(into: [:]) { $0[$1.token, default: []].insert($1.provider) }
    }
}

enum ANSModeModel: CaseIterable { case csharp, ordered }

/// How the network treats one send in a schedule.
struct SendConditions {
    /// No node reachable: nothing is sent.
    var offline = false
    /// The node takes it but its answer is lost.
    var answerLost = false
    /// The pool drops it silently.
    var dropped = false
    /// Blocks before it is forged.
    var delay: Int64 = 1
    /// A node that has not seen it answers "not found" to a lookup.
    var staleLookups = false
}
