import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// The page journal that lets a watch killed in the middle of a page lose none of it: each
/// test leaves a page the way a process would have, then opens the home afresh, as the next
/// process does.
@Suite("Watch journal")
struct WatchJournalTests {
    let account = KeyPair(passphrase: Passphrase(unvalidated: "watch journal")).address
    let ids = (1...5).map { TransactionID(number: 1000 + $0) }
    /// The page's transactions, in blocks 40 to 42.
    var listed: [WatchedTransaction] { ids.enumerated().map { WatchedTransaction(id: $1, height: 40 + Int64($0 / 2)) } }
    let from = WatchCursor(height: 40, skip: 3)
    let past = WatchCursor(height: 44)

    func home() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory.privateHome()
        return home
    }

    @Test func aKillAfterTwoOfFiveTakesTheOtherThreeOutAndPutsTheCursorBack() async throws {
        let home = try home()
        do {
            let page = try await NotificationLog(home: home.path).recordWatched(
                listed, account: account, from: from, to: past, stream: "chats")
            page.handedOverNext()
            page.handedOverNext()
        }  // killed: the page is dropped without a word

        let log = try NotificationLog(home: home.path)
        #expect(try await log.shown(among: listed, account: account) == Set(ids), "all five recorded before the kill")
        #expect(try await log.settleWatched(account: account, stream: "chats") == 3)
        #expect(try await log.shown(among: listed, account: account) == Set(ids[..<2]))
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
        #expect(try await log.settleWatched(account: account, stream: "chats") == 0, "settled once")
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
    }

    /// What a socket brought, killed before it was handed over: taken out again, so the
    /// listing that finds it in a block shows it; handed over, it is skipped there for good.
    @Test func aPooledNotificationKilledBeforeItsHandOverIsShownFromItsBlock() async throws {
        let home = try home()
        let (lost, kept) = (ids[0], ids[1])
        do {
            let log = try NotificationLog(home: home.path)
            _ = try await log.recordPooled([kept], account: account, at: 1, stream: "socket").handedOverNext()
            _ = try await log.recordPooled([lost], account: account, at: 2, stream: "socket")
        }  // killed while `lost` was being handed over
        let log = try NotificationLog(home: home.path)
        #expect(try await log.shown(pooled: [lost, kept], account: account, fromHeight: 40) == [lost, kept])
        #expect(try await log.settleWatched(account: account, stream: "socket") == 1)
        #expect(try await log.shown(pooled: [lost, kept], account: account, fromHeight: 40) == [kept])
        let inBlocks = [WatchedTransaction(id: lost, height: 41), WatchedTransaction(id: kept, height: 41)]
        #expect(
            try await log.shown(among: inBlocks, account: account) == [kept],
            "its block's listing skips only the one handed over")
    }

    /// A transaction the listings handed over from a block is not shown again when a socket
    /// announces it late, as long as its page reaches where the listings read.
    @Test func aLateAnnouncementOfAListedTransactionIsSkipped() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        let page = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
        for _ in ids { page.handedOverNext() }
        let unlisted = TransactionID(number: 3000)
        #expect(try await log.shown(pooled: ids + [unlisted], account: account, fromHeight: 40) == Set(ids))
        #expect(
            try await log.shown(pooled: ids, account: account, fromHeight: 42) == Set(ids), "the page reaches block 42")
        #expect(
            try await log.shown(pooled: ids, account: account, fromHeight: 43).isEmpty,
            "nor is a page below the floor looked in")
    }

    @Test func aPageHandedOverWholeLeavesNothingToSettle() async throws {
        let home = try home()
        do {
            let page = try await NotificationLog(home: home.path).recordWatched(
                listed, account: account, from: from, to: past, stream: "chats")
            for _ in ids { page.handedOverNext() }
            page.handedOverNext()  // one more than the page has: nothing
        }
        let log = try NotificationLog(home: home.path)
        #expect(try await log.settleWatched(account: account, stream: "chats") == 0)
        #expect(try await log.shown(among: listed, account: account) == Set(ids))
        #expect(try await log.watchCursor(account: account, stream: "chats") == past)
    }

    /// The file is written over in place, never truncated (ext4 turns each truncation into
    /// disk work): a shorter page after a longer one leaves the longer one's tail, which is
    /// not read, and a kill in the shorter one settles just its own.
    @Test func aShorterPageIsWrittenOverALongerOne() async throws {
        let home = try home()
        let path = WatchJournal(home: home.path, account: account, stream: "chats").path
        do {
            let log = try NotificationLog(home: home.path)
            let long = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
            for _ in ids { long.handedOverNext() }
            let inode = try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
            let later = (6...7).map { WatchedTransaction(id: TransactionID(number: 2000 + UInt64($0)), height: 44) }
            let short = try await log.recordWatched(
                later, account: account, from: past, to: WatchCursor(height: 45), stream: "chats")
            short.handedOverNext()  // killed then
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect(attributes[.systemFileNumber] as? Int == inode, "the same file")
            #expect(attributes[.size] as? Int == WatchJournal.headerSize + 8 * ids.count, "not truncated")
        }
        let log = try NotificationLog(home: home.path)
        #expect(try await log.settleWatched(account: account, stream: "chats") == 1, "the short page's second")
        #expect(try await log.watchCursor(account: account, stream: "chats") == past)
        #expect(try await log.shown(among: listed, account: account) == Set(ids), "the long page stays shown")
    }

    /// The clean stop takes the rest out itself; the next start has nothing more to do.
    @Test func aStopInTheMiddleTakesTheRestOutAtOnce() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        let page = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
        page.handedOverNext()
        try await page.forgetTheRest()
        #expect(try await log.shown(among: listed, account: account) == [ids[0]])
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
        try await log.setWatchCursor(past, account: account, stream: "chats")  // read on since
        #expect(try await log.settleWatched(account: account, stream: "chats") == 0)
        #expect(try await log.watchCursor(account: account, stream: "chats") == past, "not put back a second time")
    }

    /// A page with notifications shown before (one for a push, one by an earlier page) records
    /// and journals only the others, and says which it skipped: a kill in its middle takes out
    /// none of the earlier showings.
    @Test func aPageRecordsOnlyWhatWasNotShownBefore() async throws {
        let home = try home()
        do {
            let log = try NotificationLog(home: home.path)
            _ = try await log.recordShown(ids[1], account: account, pushed: true, at: 1)
            let earlier = try await log.recordWatched(
                [listed[3]], account: account, from: WatchCursor(height: 30), to: from, stream: "chats")
            earlier.handedOverNext()
            let page = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
            #expect(page.shownBefore == [ids[1], ids[3]])
            let journal = WatchJournal(home: home.path, account: account, stream: "chats").read()
            #expect(journal?.ids == [ids[0], ids[2], ids[4]], "in the page's order")
            page.handedOverNext()
        }  // killed after the first of the three
        let log = try NotificationLog(home: home.path)
        #expect(try await log.settleWatched(account: account, stream: "chats") == 2)
        #expect(try await log.shown(among: listed, account: account) == [ids[0], ids[1], ids[3]])
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
    }

    /// A listing read again with nothing new (a poll's last blocks) writes nothing: the last
    /// page's journal stays as it was, and so does the cursor.
    @Test func aPageReadAgainToNoAvailWritesNothing() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        let page = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
        for _ in ids { page.handedOverNext() }
        let path = WatchJournal(home: home.path, account: account, stream: "chats").path
        let written = try Data(contentsOf: URL(fileURLWithPath: path))

        let again = try await log.recordWatched(listed, account: account, from: past, to: past, stream: "chats")
        #expect(again.shownBefore == Set(ids))
        again.handedOverNext()  // nothing to count
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == written)
        #expect(try await log.watchCursor(account: account, stream: "chats") == past)

        let moved = WatchCursor(height: 44, skip: 1)
        _ = try await log.recordWatched(listed, account: account, from: past, to: moved, stream: "chats")
        #expect(try await log.watchCursor(account: account, stream: "chats") == moved, "a cursor that moves is kept")
        #expect(
            WatchJournal(home: home.path, account: account, stream: "chats").read()
                == WatchJournal.Page(from: past, ids: []))
    }

    /// Killed after the journal was written and before the page's commit: settling puts back
    /// what was there, and takes out nothing another showing recorded.
    @Test func aKillBeforeTheCommitChangesNothing() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        try await log.setWatchCursor(from, account: account, stream: "transfers")
        _ = try await log.recordShown(ids[0], account: account, pushed: true, at: 1)
        let journal = WatchJournal(home: home.path, account: account, stream: "transfers")
        _ = try journal.start(from: from, ids: ids)

        #expect(try await log.settleWatched(account: account, stream: "transfers") == 5)
        #expect(try await log.watchCursor(account: account, stream: "transfers") == from)
        #expect(try await log.shown(among: listed, account: account) == [ids[0]], "a pushed showing stays")
    }

    /// Each listing has its own journal: settling one leaves the other's page alone.
    @Test func listingsAndAccountsHaveTheirOwnJournals() async throws {
        let home = try home()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "another account")).address
        do {
            let log = try NotificationLog(home: home.path)
            _ = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
            _ = try await log.recordWatched([listed[0]], account: other, from: from, to: past, stream: "chats")
        }
        let log = try NotificationLog(home: home.path)
        #expect(try await log.settleWatched(account: account, stream: "transfers") == 0)
        #expect(try await log.settleWatched(account: other, stream: "chats") == 1)
        #expect(try await log.settleWatched(account: account, stream: "chats") == 5)
    }

    @Test func theJournalIsTheOwnersOnly() async throws {
        let home = try home()
        let page = try await NotificationLog(home: home.path).recordWatched(
            listed, account: account, from: from, to: past, stream: "chats")
        page.handedOverNext()
        let path = WatchJournal(home: home.path, account: account, stream: "chats").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == WatchJournal.headerSize + 8 * 5)
    }

    /// A push fetched after the watch handed its transaction over is a duplicate, found in the
    /// page that reaches its block; a push the watch comes to later is skipped, found by its id.
    @Test func pushesAndTheWatchSeeEachOthersShowings() async throws {
        let home = try home()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "another account")).address
        let log = try NotificationLog(home: home.path)
        let page = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
        for _ in ids { page.handedOverNext() }
        let watched = listed[3]
        #expect(
            try await log.recordShown(watched.id, account: account, pushed: true, at: 5, height: watched.height),
            "shown by the watch")
        #expect(try await log.pushes(to: account).map(\.id) == [watched.id], "and now known to have come by push")
        #expect(
            try await log.recordShown(ids[4], account: account, pushed: true, at: 6, height: watched.height),
            "in another of the page's blocks")
        #expect(
            try await !log.recordShown(TransactionID(number: 1999), account: account, pushed: true, at: 6, height: 41),
            "not in the page")
        let later = WatchedTransaction(id: TransactionID(number: 2000), height: 45)
        #expect(try await !log.recordShown(later.id, account: account, pushed: true, at: 7, height: later.height))
        #expect(
            try await log.shown(
                among: [later, WatchedTransaction(id: TransactionID(number: 2001), height: 45)], account: account) == [
                    later.id
                ])
        #expect(try await log.shown(among: listed, account: other).isEmpty, "another account's watch")
        #expect(
            try await !log.recordShown(ids[0], account: other, pushed: true, at: 8, height: 40), "nor for its pushes")
    }

    /// A log whose watch kept its own in `shown` (the first schema) still skips them, and
    /// settles a page it was killed in the middle of.
    @Test func aLogOfTheFirstSchemaKeepsWhatItsWatchHandedOver() async throws {
        let home = try home()
        do {
            let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: true)
            try connection.migrate(Array(NotificationLog.migrations.prefix(1)))
            for id in ids {
                try connection.query(
                    "INSERT INTO shown (account, id, shown_at, pushed) VALUES (?1, ?2, 1, 0)",
                    [.text(account.description), .integer(Int64(id.number))])
            }
            try connection.query("INSERT INTO watch_cursors VALUES (?1, 'chats', 44, 0)", [.text(account.description)])
            let delivery = try WatchJournal(home: home.path, account: account, stream: "chats").start(
                from: from, ids: ids)
            delivery.recordNext()
            delivery.recordNext()  // killed then
        }
        let log = try NotificationLog(home: home.path)
        #expect(try await log.shown(among: listed, account: account) == Set(ids))
        #expect(try await log.settleWatched(account: account, stream: "chats") == 3)
        #expect(try await log.shown(among: listed, account: account) == Set(ids[..<2]))
        #expect(try await log.watchCursor(account: account, stream: "chats") == from)
    }

    @Test func theFormatRoundTrips() throws {
        let page = WatchJournal.Page(from: from, ids: ids, delivered: Array(ids[..<2]))
        let bytes = WatchJournal.encode(page)
        #expect(bytes.count == WatchJournal.headerSize + 8 * 5)
        #expect(Array(bytes[..<12]) == Array("AWJ2".utf8) + [2, 0, 0, 0, 5, 0, 0, 0])
        #expect(Array(bytes[12..<28]) == [40, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[28..<36]) == [0xE9, 0x03, 0, 0, 0, 0, 0, 0])
        #expect(WatchJournal.decode(bytes) == page)
        #expect(WatchJournal.decode(bytes + [1, 2, 3] + bytes) == page, "what follows the ids is not read")
        #expect(page.undelivered == Array(ids[2...]))
    }

    /// What an earlier version left behind: its ids handed over appended after the page's.
    @Test func theFirstFormatIsStillRead() throws {
        let id = { (n: UInt64) in (0..<8).map { UInt8(truncatingIfNeeded: n >> ($0 * 8)) } }
        let bytes =
            Array("AWJ1".utf8) + [2, 0, 0, 0] + [40, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0] + id(1001) + id(1002)
            + id(1001)
        #expect(WatchJournal.decode(bytes) == WatchJournal.Page(from: from, ids: Array(ids[..<2]), delivered: [ids[0]]))
        #expect(WatchJournal.decode(bytes + [1, 2, 3])?.delivered == [ids[0]], "a partly written last id is not read")
    }

    /// None of these is a journal this code wrote: each guards nothing, and none traps.
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
        #expect(WatchJournal.decode(bytes) == nil)
    }

    /// A damaged journal settles nothing and the watch goes on; the file is cleared.
    @Test func aDamagedJournalIsClearedAndSettlesNothing() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        try await log.setWatchCursor(past, account: account, stream: "chats")
        let path = WatchJournal(home: home.path, account: account, stream: "chats").path
        try Data("not a journal at all, just words".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await log.settleWatched(account: account, stream: "chats") == 0)
        #expect(try await log.watchCursor(account: account, stream: "chats") == past)
    }

    /// A journal that cannot be written is the watch journal's failure, named as such, and the
    /// page is not recorded in the log.
    @Test func aJournalThatCannotBeWrittenIsNamedTheWatchJournal() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        let path = WatchJournal(home: home.path, account: account, stream: "chats").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = await #expect(throws: StoreError.self) {
            _ = try await log.recordWatched(listed, account: account, from: from, to: past, stream: "chats")
        }
        guard case .failed(.watchJournal, path, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(
            error?.description.hasPrefix("the watch journal \(path) cannot be used: ") == true,
            "\(String(describing: error))")
        #expect(try await log.shown(among: listed, account: account).isEmpty)
    }

    /// Pages are checked and recorded in statements of 100 rows: a longer one, and a short
    /// one, are each matched by id and block, every row of them.
    @Test(arguments: [3, 100, 101, 250])
    func aPageOfAnyLengthIsCheckedByIdAndBlock(count: Int) async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        let page = (0..<count).map {
            WatchedTransaction(id: TransactionID(number: UInt64(5000 + $0)), height: 60 + Int64($0 / 7))
        }
        let recorded = try await log.recordWatched(
            page, account: account, from: WatchCursor(height: 60), to: WatchCursor(height: 99), stream: "chats")
        for _ in page { recorded.handedOverNext() }
        let pushed = TransactionID(number: 9)
        _ = try await log.recordShown(pushed, account: account, pushed: true, at: 1)

        #expect(try await log.shown(among: page, account: account) == Set(page.map(\.id)))
        // Another block, another account, an id never seen: none of them was shown.
        let elsewhere = page.map { WatchedTransaction(id: $0.id, height: $0.height + 1_000) }
        #expect(try await log.shown(among: elsewhere, account: account).isEmpty)
        #expect(
            try await log.shown(among: page, account: KeyPair(passphrase: Passphrase(unvalidated: "another")).address)
                .isEmpty)
        let mixed = [
            WatchedTransaction(id: TransactionID(number: 1), height: 60), WatchedTransaction(id: pushed, height: 61),
            page[count - 1],
        ]
        #expect(try await log.shown(among: mixed, account: account) == [pushed, page[count - 1].id])
    }
}
