import AdamantCore
import AdamantNodes
import AdamantPush
import Foundation

/// The outbox's own signal history as nodes give it: a node's answer to the listing of the
/// account's signals, through the real `NodeClient` (decoding, `verify()`) into a real `Outbox`
/// (in a fresh home) and its sync: sender, recipient and block checked, decrypted, read as a
/// `PushSignal`, kept in the store, read back and folded into token states.
///
/// Input: `mode ‖ rest`. Mode even: `rest` is the node's answer as it is. Mode odd: `rest` is
/// `SignalRecords`, made into correctly signed and encrypted transactions here, so mutations
/// of plaintexts, heights and order reach decryption and the fold.
///
/// Invariants: no trap and no store failure; what is kept is exactly the listed signals (type
/// 8, chat type 3) from the account's key to the service, in a block, that the service
/// decrypts into a signal, as the service reads them; each token's state is its last signal in (height, timestamp, id)
/// order, standing as the spec's rules say; reading the same answer again changes nothing.
enum OwnSignalsFuzz {
    static let account = keyPair(1)
    static let stranger = keyPair(2)
    static let serviceKeys = keyPair(3)
    static let service: NotificationService = {
        guard let service = try? NotificationService(address: serviceKeys.address, publicKey: serviceKeys.publicKey)
        else {
            fatalError("a key's own address always matches it")
        }
        return service
    }()
    static let gap = Planner.Policy().gap

    static func keyPair(_ byte: UInt8) -> KeyPair {
        var seed = [UInt8](repeating: byte, count: 32)
        guard let pair = try? KeyPair(seed: &seed) else { fatalError("a 32-byte seed always loads") }
        return pair
    }

    static func run(_ data: [UInt8]) {
        guard let mode = data.first else { return }
        let rest = Array(data.dropFirst())
        let answer = mode % 2 == 0 ? rest : SignalRecords.answer(SignalRecords.transactions(SignalRecords.parse(rest)))
        let home = ScratchHome.fresh()
        runBlocking {
            let outbox: Outbox
            do {
                outbox = try Outbox(
                    home: home, keyPair: account, service: service, chain: OwnSignalsNode(answer: answer).client(),
                    wallClock: ManualWallClock(unixMillis: OwnSignalsNode.wallClockMillis))
            } catch {
                return invariant(false, "a fresh home does not open: \(error)")
            }
            guard let states = await sync(outbox) else { return }
            guard let listed = SignalRecords.listed(answer) else {
                return invariant(false, "an answer was taken whose transactions do not decode")
            }
            let kept = await keptSignals(outbox)
            check(kept: kept, listed: listed)
            check(states: states, kept: kept)
            invariant(await sync(outbox) == states, "reading the same answer again changes the token states")
            invariant(Set(await keptSignals(outbox)) == Set(kept), "reading the same answer again changes what is kept")
        }
    }

    /// The token states after a sync; nil when the nodes' answer was refused.
    private static func sync(_ outbox: Outbox) async -> [String: TokenState]? {
        do { return try await outbox.tokensOnChain() } catch {
            if case .store = error { invariant(false, "the store failed: \(error)") }
            return nil
        }
    }

    private static func keptSignals(_ outbox: Outbox) async -> [OwnSignal] {
        do { return try await outbox.keptSignals() } catch {
            invariant(false, "kept signals cannot be read back: \(error)")
            return []
        }
    }

    /// Kept: the own signals of the listing, read from the service's side. The service reads
    /// signals from chat transactions only (a transfer's asset is not signed).
    private static func check(kept: [OwnSignal], listed: [Transaction]) {
        var expected: [TransactionID: (signal: PushSignal, timestamp: Int32, heights: Set<Int64>)] = [:]
        for transaction in listed {
            guard transaction.senderPublicKey == account.publicKey, transaction.recipientId == service.address,
                let height = transaction.height, height > 0, transaction.type == .chat,
                transaction.chat?.type == .signal,
                let id = try? transaction.verify(),
                let text = try? transaction.decryptMessage(with: serviceKeys, partner: account.publicKey),
                let signal = try? PushSignal(plaintext: text)
            else { continue }
            expected[id, default: (signal, transaction.timestamp, [])].heights.insert(height)
        }
        let ids = kept.map(\.id)
        invariant(Set(ids).count == ids.count, "a signal is kept twice: \(ids)")
        invariant(
            Set(ids) == Set(expected.keys), "kept \(ids.sorted()), the own signals listed are \(expected.keys.sorted())"
        )
        for signal in kept {
            guard let listing = expected[signal.id] else { continue }
            invariant(
                signal.signal == listing.signal,
                "\(signal.id) is kept as \(signal.signal), the service reads \(listing.signal)")
            invariant(
                signal.timestamp == listing.timestamp && listing.heights.contains(signal.height),
                "\(signal.id) is kept at \(signal.height)/\(signal.timestamp), listed at \(listing.heights)/\(listing.timestamp)"
            )
        }
    }

    /// Each token's state from its kept signals, by the rules of `TokenState` written apart.
    private static func check(states: [String: TokenState], kept: [OwnSignal]) {
        let byToken = Dictionary(grouping: kept, by: \.signal.token)
        invariant(
            Set(states.keys) == Set(byToken.keys), "states for \(states.keys.count) tokens, signals of \(byToken.count)"
        )
        let accountAdds = kept.filter { $0.signal.action == .add }.map(\.height)
        for (token, signals) in byToken {
            guard let state = states[token],
                let last = signals.max(by: {
                    ($0.height, $0.timestamp, $0.id.number) < ($1.height, $1.timestamp, $1.id.number)
                })
            else { continue }
            let adds = signals.filter { $0.signal.action == .add }.map(\.height)
            let removes = signals.filter { $0.signal.action == .remove }.map(\.height)
            invariant(
                state.last == last,
                "\(token)'s last signal is \(String(describing: state.last?.id)), in chain order \(last.id)")
            invariant(
                state.lastAddHeight == adds.max() && state.lastRemoveHeight == removes.max(),
                "\(token)'s last heights are wrong")
            // Heights kept are positive, so these differences cannot overflow.
            let opposite = last.signal.action == .add ? removes.max() : adds.max()
            let standing: TokenState.Standing =
                if let opposite, last.height - opposite <= gap { .atRisk } else if last.signal.action == .add {
                    .registered
                } else if accountAdds.contains(where: { abs($0 - last.height) <= gap }) { .atRisk } else {
                    .unregistered
                }
            invariant(state.standing == standing, "\(token) is \(state.standing), its signals make it \(standing)")
        }
    }
}
