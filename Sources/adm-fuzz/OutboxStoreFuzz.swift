import AdamantCore
import AdamantPush
import AdamantStore
import Foundation

/// The outbox store and the notification log opening a damaged file: `StoreBaseline`'s file,
/// changed as the input says, in a fresh home, opened by the real `Outbox` (or
/// `NotificationLog`) and read as `adm-push queue` and `status` (or `adm-fetch`) read it.
///
/// Input: `selector ‖ cut ‖ patches`. selector bit 0: the log instead of the outbox. A patch is
/// 3 bytes: an offset (big-endian, modulo the file's size) and a mask XORed into the byte
/// there; then the file is cut to `cut` bytes (2, big-endian) unless that is 0. XOR changes a
/// byte alike whatever the random parts of a baseline hold, so an input is the same damage
/// in every process.
///
/// Invariants: no trap; every failure a `StoreError` of the store read, never of the home, and
/// naming the file that was opened; what
/// reads is well formed: intents grouped by token in sequence order, each with a signal
/// written for its token (their seals name the row), kept signals only as sealed for their id,
/// a status of the newest intents read; from the log, keys of their own addresses only and
/// cursors never negative.
enum OutboxStoreFuzz {
    static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let baseline = StoreBaseline.shared
        let readsLog = selector & 1 == 1
        let name = readsLog ? NotificationLog.fileName : Outbox.storeFileName
        let home = ScratchHome.fresh()
        let file = damage(readsLog ? baseline.log : baseline.outbox, as: data.dropFirst())
        guard
            FileManager.default.createFile(
                atPath: "\(home)/\(name)", contents: Data(file), attributes: [.posixPermissions: 0o600])
        else {
            fatalError("cannot write \(home)/\(name)")
        }
        let store: StoreError.Store = readsLog ? .notificationLog : .outbox
        runBlocking {
            var failure: StoreError?
            if readsLog {
                do throws(StoreError) { try await readLog(home) } catch { failure = error }
            } else {
                do throws(OutboxError) { try await readOutbox(home, baseline) } catch {
                    if case .store(let error) = error { failure = error }
                }
            }
            switch failure {
            case .home?, .homeUnwritable?:
                invariant(false, "a damaged store is blamed on the home: \(String(describing: failure))")
            case .damaged(let blamed, let path, _)?, .newer(let blamed, let path, _, _)?:
                invariant(
                    blamed == store && path.hasSuffix(name), "the damage of \(name) is blamed on \(blamed.name) \(path)"
                )
            case .failed?, nil: break
            }
        }
    }

    static func damage(_ file: [UInt8], as input: ArraySlice<UInt8>) -> [UInt8] {
        var bytes = file
        var patches = input.dropFirst(2)
        while patches.count >= 3 {
            let patch = Array(patches.prefix(3))
            bytes[(Int(patch[0]) << 8 | Int(patch[1])) % bytes.count] ^= patch[2]
            patches = patches.dropFirst(3)
        }
        let cut = input.count >= 2 ? Int(input[input.startIndex]) << 8 | Int(input[input.startIndex + 1]) : 0
        return cut == 0 ? bytes : Array(bytes.prefix(cut))
    }

    private static func readOutbox(_ home: String, _ baseline: StoreBaseline) async throws(OutboxError) {
        let outbox = try Outbox(
            home: home, keyPair: OwnSignalsFuzz.account, service: OwnSignalsFuzz.service, chain: StoreChain(),
            wallClock: ManualWallClock(unixMillis: StoreBaseline.wallClockMillis))
        check(try await outbox.queue(), baseline)
        for signal in try await outbox.keptSignals() {
            invariant(
                baseline.keptSignals[signal.id] == signal.signal,
                "kept signal \(signal.id) reads as one never kept for it")
        }
        _ = try await outbox.keptChainState()
        let report = try await outbox.status()
        let after = try await outbox.queue()
        check(after, baseline)
        let newest = Set(after.compactMap { group in group.max { $0.sequence < $1.sequence } })
        for key in report.keys {
            invariant(
                newest.contains(key.newest), "the status of intent \(key.newest.id) is not of a newest intent read")
        }
    }

    private static func check(_ groups: [[Intent]], _ baseline: StoreBaseline) {
        var tokens = Set<String>()
        var ids = Set<Int64>()
        for group in groups {
            guard let token = group.first?.signal.token else { return invariant(false, "an empty group of intents") }
            invariant(tokens.insert(token).inserted, "a token's intents are in two groups")
            for (intent, next) in zip(group, group.dropFirst()) {
                invariant(
                    intent.sequence < next.sequence, "intents \(intent.id) and \(next.id) are out of sequence order")
            }
            for intent in group {
                invariant(ids.insert(intent.id).inserted, "intent \(intent.id) is read twice")
                invariant(intent.signal.token == token, "a group holds intents of two tokens")
                invariant(
                    baseline.intentSignals[token]?.contains(intent.signal) == true,
                    "intent \(intent.id) reads as a signal never written for its token")
            }
        }
    }

    private static func readLog(_ home: String) async throws(StoreError) {
        let log = try NotificationLog(home: home)
        let account = OwnSignalsFuzz.account.address
        _ = try await log.pushes(to: account)
        for address in [OwnSignalsFuzz.stranger.address, OwnSignalsFuzz.service.address, account] {
            if let key = try await log.publicKey(of: address) {
                invariant(key.address == address, "the key of \(address) is \(key.address)'s")
            }
        }
        for stream in [WatchStream.chats, .transfers] {
            if let cursor = try await log.watchCursor(account: account, stream: stream) {
                invariant(cursor.height >= 0 && cursor.skip >= 0, "a negative watch cursor \(cursor)")
            }
        }
        let asked = (11...16).map { WatchedTransaction(id: TransactionID(number: $0), height: 40) }
        let shown = try await log.shown(among: asked, account: account)
        invariant(shown.isSubset(of: asked.map(\.id)), "shown ids that were not asked about")
        _ = try await log.recordShown(
            TransactionID(number: 16), account: account, pushed: true, at: StoreBaseline.wallClockMillis)
        // A page recorded and stopped at once: what it takes out is looked for in every page
        // that reaches its blocks, the baseline's among them.
        guard let lease = try? log.leaseWatch(account: account) else {
            return invariant(false, "the watch's lease of a home no watch runs on is refused")
        }
        let page = try await log.recordWatched(
            [
                WatchedTransaction(id: TransactionID(number: 15), height: 40),
                WatchedTransaction(id: TransactionID(number: 17), height: 41),
            ],
            account: account, from: WatchCursor(height: 40), to: WatchCursor(height: 42), stream: .chats,
            lease: lease)
        try await page.takeBackTheRest()
    }
}
