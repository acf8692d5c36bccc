import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// The journal files of the release before the log kept a watch's page: read as that release
/// wrote them, settled as its watch settled them at its next start, by the log's opening, and
/// deleted; left to the watch of an account that still runs.
@Suite("An earlier release's watch journals")
struct OldWatchJournalTests {
    let account = KeyPair(passphrase: Passphrase(unvalidated: "watch journal")).address
    let ids = (1...5).map { TransactionID(number: 1000 + $0) }
    /// The page's transactions, in blocks 40 to 42.
    var listed: [WatchedTransaction] { ids.enumerated().map { WatchedTransaction(id: $1, height: 40 + Int64($0 / 2)) } }
    let from = WatchCursor(height: 40, skip: 3)
    let past = WatchCursor(height: 44)

    /// A journal of the second format, byte for byte as that release wrote it: "AWJ2", the
    /// count handed over and the number of ids (UInt32), the cursor (Int64s), the ids, all
    /// little-endian.
    static func secondFormat(from: WatchCursor, ids: [TransactionID], handedOver: Int) -> [UInt8] {
        Array("AWJ2".utf8) + littleEndian(UInt32(handedOver)) + littleEndian(UInt32(ids.count))
            + littleEndian(from.height) + littleEndian(Int64(from.skip)) + ids.flatMap { littleEndian($0.number) }
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    func journal(in home: TemporaryDirectory, account: Address? = nil, stream: String = "chats") -> String {
        home.file("watch-\(account ?? self.account)-\(stream).journal")
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Killed after 2 of a page's 5: opening the log takes the other three out, puts the
    /// cursor back and deletes the file; the watch's own settling then finds nothing.
    @Test func openingTheLogSettlesAJournalAndDeletesIt() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            // The page in the log as the release recorded it; how far it got is the journal's to say.
            let log = try NotificationLog(home: home.path)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: "chats",
                lease: try log.leaseWatch(account: account))
            for _ in ids { page.handedOverNext() }
        }
        let path = journal(in: home)
        try write(Self.secondFormat(from: from, ids: ids, handedOver: 2), to: path)

        let log = try NotificationLog(home: home.path)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try await log.shown(among: listed, account: account) == Set(ids[..<2]))
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
        let lease = try log.leaseWatch(account: account)
        #expect(try await log.settleWatched(account: account, stream: "chats", lease: lease) == 0, "settled once")
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
    }

    /// Killed after the journal was written and before the page's commit: settling puts back
    /// what was there, and takes out nothing another showing recorded.
    @Test func aKillBeforeThePagesCommitChangesNothing() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let log = try NotificationLog(home: home.path)
            try await log.setWatchCursor(from, account: account, stream: "transfers")
            _ = try await log.recordShown(ids[0], account: account, pushed: true, at: 1)
        }
        try write(Self.secondFormat(from: from, ids: ids, handedOver: 0), to: journal(in: home, stream: "transfers"))

        let log = try NotificationLog(home: home.path)
        #expect(try await log.watchCursor(account: account, stream: "transfers") == from)
        #expect(try await log.shown(among: listed, account: account) == [ids[0]], "a pushed showing stays")
    }

    /// A log whose watch kept its own in `shown` (the first schema) still skips them, and
    /// settles a page it was killed in the middle of, migrated and settled in one opening.
    @Test func aLogOfTheFirstSchemaKeepsWhatItsWatchHandedOver() async throws {
        let home = try TemporaryDirectory.privateHome()
        do {
            let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: true)
            try connection.migrate(Array(NotificationLog.migrations.prefix(1)))
            for id in ids {
                try connection.query(
                    "INSERT INTO shown (account, id, shown_at, pushed) VALUES (?1, ?2, 1, 0)",
                    [.text(account.description), .integer(Int64(id.number))])
            }
            try connection.query("INSERT INTO watch_cursors VALUES (?1, 'chats', 44, 0)", [.text(account.description)])
        }
        try write(Self.secondFormat(from: from, ids: ids, handedOver: 2), to: journal(in: home))

        let log = try NotificationLog(home: home.path)
        #expect(try await log.shown(among: listed, account: account) == Set(ids[..<2]))
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
        let lease = try log.leaseWatch(account: account)
        #expect(try await log.settleWatched(account: account, stream: "chats", lease: lease) == 0)
    }

    /// A journal that is not one settles nothing, and is deleted: it guards nothing.
    @Test func aDamagedJournalIsDeletedAndSettlesNothing() async throws {
        let home = try TemporaryDirectory.privateHome()
        try await NotificationLog(home: home.path).setWatchCursor(past, account: account, stream: "chats")
        let path = journal(in: home)
        try Data("not a journal at all, just words".utf8).write(to: URL(fileURLWithPath: path))

        let log = try NotificationLog(home: home.path)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try await log.watchCursor(account: account, stream: "chats") == past)
    }

    /// A watch of the earlier release still running (it holds the account's lease) writes its
    /// journal: opening the log leaves it. The next watch, holding the lease, settles it as it
    /// starts; another account's journal is settled at once.
    @Test func aRunningWatchsJournalIsLeftToTheNextWatch() async throws {
        let home = try TemporaryDirectory.privateHome()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "another account")).address
        let before = try NotificationLog(home: home.path)
        for address in [account, other] {
            try await before.setWatchCursor(past, account: address, stream: "chats")
            try write(Self.secondFormat(from: from, ids: ids, handedOver: 4), to: journal(in: home, account: address))
        }
        do {
            let running = try WatchLease(home: home.path, account: account)
            let log = try NotificationLog(home: home.path)
            #expect(FileManager.default.fileExists(atPath: journal(in: home)), "the running watch's")
            #expect(try await log.watchCursor(account: account, stream: "chats") == past)
            #expect(!FileManager.default.fileExists(atPath: journal(in: home, account: other)))
            #expect(try await log.watchCursor(account: other, stream: "chats") == from)
            withExtendedLifetime(running) {}
        }
        let log = try NotificationLog(home: home.path)
        let lease = try await nextLease(log, account)
        #expect(!FileManager.default.fileExists(atPath: journal(in: home)), "the stopped watch's, settled on opening")
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
        withExtendedLifetime(lease) {}
    }

    /// What opening the log leaves to a watch that took its lease first: settled by the
    /// watch's own start, the journal's page before the log's.
    @Test func theWatchHoldingTheLeaseSettlesAJournalLeftToIt() async throws {
        let home = try TemporaryDirectory.privateHome()
        try write(Self.secondFormat(from: from, ids: ids, handedOver: 4), to: journal(in: home))
        let lease = try WatchLease(home: home.path, account: account)
        let log = try NotificationLog(home: home.path)
        #expect(FileManager.default.fileExists(atPath: journal(in: home)))
        #expect(try await log.settleWatched(account: account, stream: "chats", lease: lease) == 1)
        #expect(!FileManager.default.fileExists(atPath: journal(in: home)))
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
        withExtendedLifetime(lease) {}
    }

    /// Files that are not a journal of an account's listing stay as they are.
    @Test(arguments: [
        "watch-notanaddress-chats.journal", "watch-U1234-.journal", "watch-U1234.journal", "watch-U1234.lock",
        "outbox-U1234-chats.journal",
    ])
    func otherFilesAreLeftAlone(_ name: String) throws {
        let home = try TemporaryDirectory.privateHome()
        try write(Self.secondFormat(from: from, ids: ids, handedOver: 0), to: home.file(name))
        _ = try NotificationLog(home: home.path)
        #expect(FileManager.default.fileExists(atPath: home.file(name)))
    }

    // MARK: The files' formats

    @Test func theSecondFormatIsRead() throws {
        let bytes = Self.secondFormat(from: from, ids: ids, handedOver: 2)
        #expect(bytes.count == 28 + 8 * 5)
        #expect(Array(bytes[..<12]) == Array("AWJ2".utf8) + [2, 0, 0, 0, 5, 0, 0, 0])
        #expect(Array(bytes[12..<28]) == [40, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[28..<36]) == [0xE9, 0x03, 0, 0, 0, 0, 0, 0])
        let page = OldWatchJournal.Page(from: from, ids: ids, delivered: Array(ids[..<2]))
        #expect(OldWatchJournal.decode(bytes) == page)
        #expect(OldWatchJournal.decode(bytes + [1, 2, 3] + bytes) == page, "what follows the ids is not read")
        #expect(page.undelivered == Array(ids[2...]))
    }

    /// The first format: its ids handed over appended after the page's.
    @Test func theFirstFormatIsRead() throws {
        let id = { (n: UInt64) in Self.littleEndian(n) }
        let bytes =
            Array("AWJ1".utf8) + [2, 0, 0, 0] + [40, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0] + id(1001) + id(1002)
            + id(1001)
        #expect(
            OldWatchJournal.decode(bytes)
                == OldWatchJournal.Page(from: from, ids: Array(ids[..<2]), delivered: [ids[0]]))
        #expect(
            OldWatchJournal.decode(bytes + [1, 2, 3])?.delivered == [ids[0]], "a partly written last id is not read")
    }

    /// None of these is a journal a watch wrote: each guards nothing, and none traps.
    @Test(arguments: [
        [], Array("AWJ1".utf8), Array("AWJ2".utf8) + [UInt8](repeating: 0, count: 20),
        Array("AWJ3".utf8) + [UInt8](repeating: 0, count: 24),
        Array("AWJ1".utf8) + [1, 0, 0, 0] + [UInt8](repeating: 0, count: 16),  // counts one id, has none
        Array("AWJ1".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 16),
        Array("AWJ1".utf8) + [0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 16),  // a negative cursor
        Array("AWJ1".utf8) + [1, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [1, 0, 0, 0, 0, 0, 0, 0] + [
            2, 0, 0, 0, 0, 0, 0, 0,
        ],  // delivered a stranger
        Array("AWJ2".utf8) + [0, 0, 0, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 16),  // counts one id, has none
        Array("AWJ2".utf8) + [2, 0, 0, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 24),  // two handed over of one
        Array("AWJ2".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 16),
        Array("AWJ2".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 16),  // a negative cursor
    ])
    func bytesThatAreNotAJournal(_ bytes: [UInt8]) {
        #expect(OldWatchJournal.decode(bytes) == nil)
    }
}
