import AdamantCore
import Synchronization

extension Devnet {
    /// How the adamant-ns emulator applies signals; a change holds from the next signal it hears.
    public var nsMode: NSMode {
        get { nsService.emulator.withLock { $0.mode } }
        set { nsService.emulator.withLock { $0.mode = newValue } }
    }

    /// Polls now, as the service's timer would (`NSMode` says what a poll reads). Does nothing
    /// when adamant-ns does not run.
    public func pollNS() { if services.runsNS { nsService.poll(chain) } }

    /// The devices adamant-ns holds, in the order they were first added.
    public var nsDevices: [NSDevice] { nsService.emulator.withLock { $0.devices } }

    /// Every push adamant-ns would have sent, oldest first.
    public var nsPushes: [NSPush] { nsService.emulator.withLock { $0.pushes } }
}

/// The adamant-ns emulator behind its lock. Both its socket and its polls run under the
/// ledger's lock, taken first, so what it hears keeps the pool's and the chain's order.
final class NSService: Sendable {
    let emulator: Mutex<NSEmulator>

    init(_ emulator: NSEmulator) { self.emulator = Mutex(emulator) }

    /// Called with the ledger locked, as the pool admits.
    func admitted(_ transactions: [Transaction]) -> [String] { emulator.withLock { $0.admitted(transactions) } }

    func poll(_ chain: SharedChain) {
        let lines = chain.ledger.withLock { ledger in emulator.withLock { $0.poll(ledger) } }
        for line in lines { chain.log?(line) }
    }
}
