import AdamantCore
import AdamantNodes
import Foundation
import Synchronization
import Testing

@testable import AdamantPush

/// The outbox's waits are on its chain's clock, and its retry jitter comes from its
/// configuration: both steered here, so the timings are exact.
@Suite("Outbox clock")
struct OutboxClockTests {
    let home = try! TemporaryDirectory()
    let account = KeyPair(passphrase: Passphrase(unvalidated: "outbox clock test"))
    let token = String(repeating: "cd", count: 32)

    func outbox(
        _ chain: RefusingChain, wallClock: any WallClock = SystemWallClock(),
        configure: (inout Outbox.Configuration) -> Void = { _ in }
    ) throws -> Outbox {
        chmod(home.path, 0o700)
        var configuration = Outbox.Configuration()
        configure(&configuration)
        return try Outbox(
            home: home.path, keyPair: account, service: .adamantIOS, chain: chain, configuration: configuration,
            wallClock: wallClock)
    }

    @Test func aFlushPausesOnTheChainsClockUntilItsBudgetIsSpent() async throws {
        let manual = ManualClock()
        let chain = RefusingChain(clock: AnyClock(manual))
        let outbox = try outbox(chain)
        _ = try await outbox.register(token: token, provider: .apns)
        let flush = Task { try await outbox.flush(within: .seconds(2)) }
        for pass in 1...4 {
            await manual.waitForSleepers(1)
            let wake = OffsetInstant(offset: Outbox.Configuration().pollInterval * pass)
            #expect(manual.pendingDeadlines == [wake])
            #expect(chain.passes == pass)
            manual.advance(to: wake)
        }
        let report = try await flush.value
        #expect(chain.passes == 5, "a last pass when the budget is spent, then no pause")
        #expect(manual.sleeperCount == 0)
        #expect(report.keys.map(\.isSettled) == [false])
    }

    @Test func theRetryJitterIsDrawnFromTheConfiguredGenerator() async throws {
        let wall = ManualWallClock(unixMillis: 1_700_000_000_000)
        let outbox = try outbox(RefusingChain(clock: .continuous), wallClock: wall) { $0.jitter = OneBits() }
        _ = try await outbox.register(token: token, provider: .apns)
        let report = try await outbox.flush(within: .zero)
        #expect(report.networkProblem != nil)
        let intent = try #require(try await outbox.queue().first?.last)
        let delay = Planner.Policy().backoff(retries: 0)
        #expect(intent.notBefore == wall.unixMillis() + delay + delay / 4)
    }
}

/// A funded chain with none of the account's signals, on which every send fails before the
/// bytes leave; it counts the outbox's passes (each asks the height once).
final class RefusingChain: SignalChain {
    let clock: AnyClock
    private let heights = Mutex(0)

    init(clock: AnyClock) { self.clock = clock }

    var passes: Int { heights.withLock { $0 } }

    func height() async throws(NodeError) -> Int64 {
        heights.withLock { $0 += 1 }
        return 100
    }
    func signals(sentBy sender: Address, afterHeight: Int64, offset: Int) async throws(NodeError) -> [Transaction] {
        []
    }
    func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation { .notFound }
    func spendableBalance(of address: Address) async throws(NodeError) -> ADMAmount {
        ADMAmount(units: 100 * ADMAmount.unitsPerADM)
    }
    func send(
        _ asset: ChatAsset, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool,
        willSend: @Sendable (Transaction) async throws -> Void
    ) async throws -> SentSignal {
        throw NodeError.noUsableNode([])
    }
}

/// Every draw all one bits: the most jitter there is. (All zero bits would never end: a
/// bounded draw rejects them and draws again.)
struct OneBits: RandomNumberGenerator, Sendable {
    mutating func next() -> UInt64 { .max }
}
