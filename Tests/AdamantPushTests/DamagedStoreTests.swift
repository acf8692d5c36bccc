import AdamantCore
import Foundation
import Testing

@testable import AdamantPush
@testable import AdamantStore

/// Stores damaged on disk, as the outbox-store fuzz target found them (Fuzz/Crashes/outbox-store/).
@Suite("Damaged stores")
struct DamagedStoreTests {
    /// Fuzz/Crashes/outbox-store/log-damage-blamed-on-the-outbox: damage met while reading the
    /// notification log was reported as a damaged outbox.sqlite, and its advice (move that aside
    /// and repair) would lose the outbox's unsent intents and leave the log as it was.
    @Test func damageInTheNotificationLogNamesTheLog() async throws {
        let home = try TemporaryDirectory.privateHome()
        let account = KeyPair(passphrase: Passphrase(unvalidated: "damaged log")).address
        try damageRootPage(of: "shown", in: home.file(NotificationLog.fileName), migrations: NotificationLog.migrations)
        { connection in
            try connection.query(
                "INSERT INTO shown (account, id, shown_at, pushed) VALUES (?1, 11, 1, 1)", [.text(account.description)])
        }
        let log = try NotificationLog(home: home.path)
        let error = await #expect(throws: StoreError.self) { try await log.pushes(to: account) }
        guard case .damaged(.notificationLog, let path, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(path.hasSuffix(NotificationLog.fileName), "\(path)")
        let advice = try #require(error?.description)
        #expect(!advice.contains(OutboxStore.fileName) && !advice.contains("repair"), "\(advice)")
    }

    /// Fuzz/Crashes/outbox-store/intent-index-damaged: SQLite reads through a damaged index
    /// without a word, so one query of the intents saw two of them and another, planned through
    /// a different index, all of them: `queue` and `status` disagreed, and a pass could take an
    /// older intent for a token's newest and send it. The store is checked before it is used.
    @Test func aDamagedIndexOfTheIntentsIsDamageWhenTheStoreOpens() async throws {
        let home = try TemporaryDirectory.privateHome()
        let keyPair = KeyPair(passphrase: Passphrase(unvalidated: "damaged index"))
        let scope = StoreScope(
            account: keyPair.address, service: NotificationService.adamantIOS,
            key: LocalSealingKey(keyPair: keyPair, purpose: "outbox v1"))
        try damageRootPage(
            of: "sqlite_autoindex_intents_1", in: home.file(OutboxStore.fileName), migrations: Schema.migrations,
            at: Self.firstKeyByte
        ) { connection in
            for (sequence, action) in [(1, PushAction.add), (2, .remove)] {
                let signal = try PushSignal(token: String(repeating: "ab", count: 32), provider: .apns, action: action)
                let tag = scope.tag(signal.token)
                try connection.query(
                    """
                    INSERT INTO intents (account, service, token_tag, sequence, action, sealed, created_at, active_since, state)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, 5, 5, 'pending')
                    """,
                    [
                        .text(scope.account.description), .text(scope.service.description), .blob(tag),
                        .integer(Int64(sequence)),
                        .text(action.rawValue),
                        .blob(SealedSignal.seal(signal, key: scope.key, context: scope.intentContext(tag: tag))),
                    ])
            }
        }
        let error = #expect(throws: OutboxError.self) { _ = try OutboxStore(directory: home.path) }
        guard case .store(.damaged(.outbox, let path, let detail))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(path.hasSuffix(OutboxStore.fileName))
        #expect(detail.contains("sqlite_autoindex_intents_1"), "\(detail)")
    }

    /// Fuzz/Crashes/outbox-store/kept-height-damaged-in-the-index: a byte of the index that
    /// orders kept signals by height made one hugely negative, and folding it with its token's
    /// next signal (at a height near 2^62, which a node may report) overflowed: a trap. A kept
    /// signal is only ever in a block (height 1 or more), so any other height is damage.
    @Test func aKeptSignalOutsideAnyBlockIsDamage() async throws {
        let home = try TemporaryDirectory.privateHome()
        let keyPair = KeyPair(passphrase: Passphrase(unvalidated: "damaged height"))
        let service = NotificationService.adamantIOS
        let scope = StoreScope(
            account: keyPair.address, service: service,
            key: LocalSealingKey(keyPair: keyPair, purpose: "outbox v1"))
        let token = String(repeating: "ef", count: 32)
        do {
            let connection = try SQLiteConnection(path: home.file(OutboxStore.fileName), create: true)
            try connection.migrate(Schema.migrations)
            for (number, action, height) in [
                (UInt64(1005), PushAction.add, Int64(bitPattern: 0x9B00_0000_0000_0005)),
                (1006, .remove, (1 << 62) + 100),
            ] {
                let id = TransactionID(number: number)
                let signal = try PushSignal(token: token, provider: .apns, action: action)
                try connection.query(
                    "INSERT INTO own_signals (id, account, service, token_tag, height, timestamp, sealed) VALUES (?1, ?2, ?3, ?4, ?5, 1000, ?6)",
                    [
                        .integer(Int64(number)), .text(scope.account.description), .text(scope.service.description),
                        .blob(scope.tag(token)),
                        .integer(height),
                        .blob(SealedSignal.seal(signal, key: scope.key, context: scope.signalContext(id: id))),
                    ])
            }
        }
        let error = try await #require(throws: OutboxError.self) {
            try await OutboxStore(directory: home.path).ownSignals(scope: scope)
        }
        guard case .store(.damaged(.outbox, let path, _)) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(path.hasSuffix(OutboxStore.fileName))
        // Where it trapped: the fold of the kept signals, as every outbox pass makes it.
        let outbox = try Outbox(
            home: home.path, keyPair: keyPair, service: service, chain: ListedChain(transactions: []))
        await #expect(throws: OutboxError.self) { try await outbox.keptChainState() }
    }

    /// The type byte of a b-tree page.
    static func pageType(_ page: ArraySlice<UInt8>) -> Int { page.startIndex }

    /// A digit of the account, the first column of the first key of an index's leaf page: the
    /// entry no longer matches its row. (Its cell: a 1-byte payload size, a 6-byte record header.)
    static func firstKeyByte(_ page: ArraySlice<UInt8>) -> Int {
        let cell = Int(page[page.startIndex + 8]) << 8 | Int(page[page.startIndex + 9])
        return page.startIndex + cell + 7 + 3
    }

    /// Makes a store with `migrations` and `fill`, folds its WAL in, then flips the lowest bit of
    /// the byte `at` picks in the first page of `table` (by default its type: no kind of b-tree
    /// page). The file opens; reading the table meets the damage.
    private func damageRootPage(
        of table: String, in path: String, migrations: [Migration], at offset: (ArraySlice<UInt8>) -> Int = pageType,
        fill: (SQLiteConnection) throws -> Void
    ) throws {
        var (root, pageSize): (Int64, Int64) = (0, 0)
        do {
            let connection = try SQLiteConnection(path: path, create: true)
            try connection.migrate(migrations)
            try fill(connection)
            try connection.query("PRAGMA wal_checkpoint(TRUNCATE)")
            root = try #require(
                try connection.query("SELECT rootpage FROM sqlite_master WHERE name = ?1", [.text(table)]).first?
                    .integer(0))
            pageSize = try #require(try connection.query("PRAGMA page_size").first?.integer(0))
        }
        let url = URL(fileURLWithPath: path)
        var bytes = [UInt8](try Data(contentsOf: url))
        let start = Int((root - 1) * pageSize)
        bytes[offset(bytes[start..<start + Int(pageSize)])] ^= 0x01
        try Data(bytes).write(to: url)
    }
}
