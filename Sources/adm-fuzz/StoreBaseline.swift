import AdamantCore
import AdamantNodes
import AdamantPush
import AdamantStore
import CSQLite
import Foundation

/// The files outbox-store damages, written once per process by the real `Outbox` and
/// `NotificationLog`, and what they were given to hold.
struct StoreBaseline: Sendable {
    let outbox: [UInt8]
    let log: [UInt8]
    /// The signals of the account's intents, by token, and its kept signals, by id.
    let intentSignals: [String: Set<PushSignal>]
    let keptSignals: [TransactionID: PushSignal]

    static let shared = build()
    static let wallClockMillis: Int64 = 1_734_393_000_000
    static let height: Int64 = 100
    /// Where the log's watch of the account resumes on its chats.
    static let chatsCursor = WatchCursor(height: 40, skip: 2)

    private static func build() -> StoreBaseline {
        let home = ScratchHome.fresh()
        let (intents, kept) = runBlocking { () -> ([String: Set<PushSignal>], [TransactionID: PushSignal]) in
            do { return try await fill(home) } catch { fatalError("the baseline stores cannot be written: \(error)") }
        }
        // The stores leave their commits in the WAL (a command does not checkpoint as it
        // closes): folded into the file here, the file alone is whole.
        for name in [Outbox.storeFileName, NotificationLog.fileName] { checkpoint("\(home)/\(name)") }
        guard let outbox = FileManager.default.contents(atPath: "\(home)/\(Outbox.storeFileName)"),
            let log = FileManager.default.contents(atPath: "\(home)/\(NotificationLog.fileName)")
        else { fatalError("the baseline stores cannot be read") }
        return StoreBaseline(outbox: Array(outbox), log: Array(log), intentSignals: intents, keptSignals: kept)
    }

    /// Copies every commit in the WAL of `path` into the file and empties the WAL.
    private static func checkpoint(_ path: String) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            fatalError("\(path) cannot be opened")
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 10_000)  // the stores' queues may still be releasing them
        // A connection that has read nothing has not opened the WAL: its checkpoint would do
        // nothing and answer SQLITE_OK (with -1 frames), and the file stay its first page.
        var (frames, copied): (Int32, Int32) = (-1, -1)
        guard sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) == SQLITE_OK,
            sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, &frames, &copied) == SQLITE_OK,
            frames >= 0, frames == copied
        else {
            fatalError("\(path) cannot be checkpointed: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// An outbox with intents in every state, attempts, kept signals and another account's
    /// intent beside them; a log with pushes, keys and watch cursors.
    private static func fill(_ home: String) async throws -> ([String: Set<PushSignal>], [TransactionID: PushSignal]) {
        let clock = ManualWallClock(unixMillis: wallClockMillis)
        let outbox = try Outbox(
            home: home, keyPair: OwnSignalsFuzz.account, service: OwnSignalsFuzz.service, chain: StoreChain(),
            wallClock: clock)
        let tokens =
            ["ab", "cd", "ef"].map { String(repeating: $0, count: 32) } + [
                "fcm-token:" + String(repeating: "Aa0_", count: 10), "fcm-token:other-0123456789",
            ]
        func kept(_ id: UInt64, _ token: String, _ provider: PushProvider, _ action: PushAction, at height: Int64)
            throws -> OwnSignal
        {
            OwnSignal(
                id: TransactionID(number: id), height: height, timestamp: SignalRecords.baseTimestamp + Int32(id % 100),
                signal: try PushSignal(token: token, provider: provider, action: action))
        }
        // A node may report any positive height, so one token's signals sit near 2^62.
        try await outbox.keep(
            [
                try kept(1001, tokens[0], .apns, .add, at: 40), try kept(1002, tokens[1], .apns, .add, at: 50),
                try kept(1003, tokens[1], .apns, .remove, at: 52), try kept(1004, tokens[3], .fcm, .add, at: 60),
                try kept(1005, tokens[2], .apns, .add, at: (1 << 62) + 5),
                try kept(1006, tokens[2], .apns, .remove, at: (1 << 62) + 100),
            ], cursor: 90)
        _ = try await outbox.register(token: tokens[0], provider: .apns)  // on chain already: applied
        _ = try await outbox.register(token: tokens[4], provider: .fcm, deviceId: "pixel.7")
        _ = try await outbox.unregister(token: tokens[4])  // supersedes the add; nothing to send
        _ = try await outbox.register(token: tokens[1], provider: .apnsSandbox)  // at risk: sent
        _ = try await outbox.unregister(token: tokens[3])  // waits for the add in flight
        _ = try await outbox.register(token: "fcm-token:refused-0123456789", provider: .fcm)  // refused for good
        _ = try await outbox.register(token: String(repeating: "01", count: 32), provider: .apns)  // sent: in flight
        _ = try await outbox.flush(within: .zero)
        let other = try Outbox(
            home: home, keyPair: OwnSignalsFuzz.stranger, service: OwnSignalsFuzz.service, chain: StoreChain(),
            wallClock: clock)
        _ = try await other.register(token: tokens[0], provider: .apns)

        let log = try NotificationLog(home: home)
        let account = OwnSignalsFuzz.account.address
        _ = try await log.recordShown(
            TransactionID(number: 11), account: account, pushed: true, at: wallClockMillis, height: 40)
        _ = try await log.recordShown(
            TransactionID(number: 12), account: account, pushed: false, at: wallClockMillis + 1)
        _ = try await log.recordShown(
            TransactionID(number: 13), account: account, pushed: true, at: wallClockMillis + 2)
        try await log.remember(OwnSignalsFuzz.stranger.publicKey, of: OwnSignalsFuzz.stranger.address)
        try await log.remember(OwnSignalsFuzz.service.publicKey, of: OwnSignalsFuzz.service.address)
        try await log.setWatchCursor(chatsCursor, account: account, stream: .chats)
        _ = try await log.recordWatched(
            [
                WatchedTransaction(id: TransactionID(number: 14), height: 40),
                WatchedTransaction(id: TransactionID(number: 15), height: 40),
            ],
            account: account, from: WatchCursor(height: 40), to: WatchCursor(height: 41), stream: .transfers,
            lease: try log.leaseWatch(account: account))

        let intents = Dictionary(
            try await outbox.queue().joined().map { ($0.signal.token, [$0.signal]) }, uniquingKeysWith: +)
        return (
            intents.mapValues(Set.init),
            Dictionary(try await outbox.keptSignals().map { ($0.id, $0.signal) }, uniquingKeysWith: { a, _ in a })
        )
    }
}

/// A chain at `StoreBaseline.height` with no new signals, where nothing is found by id. Sends
/// (the baseline's only) are sealed under a nonce made from the plaintext (a fixture: never do
/// this for real), so every process writes the same attempt ids; one token's is refused.
struct StoreChain: SignalChain {
    func height() async throws(NodeError) -> Int64 { StoreBaseline.height }
    func signals(sentBy sender: Address, afterHeight: Int64, offset: Int) async throws(NodeError) -> [Transaction] {
        []
    }
    func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation { .notFound }
    func spendableBalance(of address: Address) async throws(NodeError) -> ADMAmount { ADMAmount(units: 100_000_000) }

    func send(
        _ asset: ChatAsset, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool,
        willSend: @Sendable (Transaction) async throws -> Void
    ) async throws -> SentSignal {
        let key = try ChatKey(secretKey: keyPair.secretKey, partner: OwnSignalsFuzz.service.publicKey)
        let text = try key.open(asset)
        let nonce = try ChatNonce(bytes: Array(Digest.sha256(Array(text.utf8)).prefix(ChatNonce.length)))
        let transaction = try Transaction.chat(
            key.seal(text, type: .signal, nonce: nonce), to: recipient, timestamp: SignalRecords.baseTimestamp,
            signedBy: keyPair)
        try await willSend(transaction)
        let id = try transaction.computedID()
        let outcome: WriteOutcome = text.contains("refused") ? .rejected("Invalid transaction body") : .accepted(id)
        return SentSignal(id: id, outcome: outcome, node: "http://127.0.0.1:1", nodesReached: 1)
    }
}
