import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// The page a watch is handing over, kept in the log, with the count handed over in the
/// watch's lease, so that a watch killed in the middle of a page loses none of it: each test
/// leaves a page the way a process would have, then opens the home afresh, as the next
/// process does.
@Suite("The page handed over")
struct PageHandOverTests {
    let account = KeyPair(passphrase: Passphrase(unvalidated: "page handed over")).address
    let ids = (1...5).map { TransactionID(number: 1000 + $0) }
    /// The page's transactions, in blocks 40 to 42.
    var listed: [WatchedTransaction] { ids.enumerated().map { WatchedTransaction(id: $1, height: 40 + Int64($0 / 2)) } }
    let from = WatchCursor(height: 40, skip: 3)
    let past = WatchCursor(height: 44)

    func home() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory.privateHome()
        return home
    }

    /// A watch's process on `home`: the log, and `account`'s lease, which its end lets go.
    func watch(_ home: TemporaryDirectory, of account: Address? = nil) async throws -> (
        log: NotificationLog, lease: WatchLease
    ) {
        let log = try NotificationLog(home: home.path)
        return (log, try await nextLease(log, account ?? self.account))
    }

    /// The count the lease's file holds for `stream`'s page: "page STREAM SERIAL COUNT".
    func counted(in home: TemporaryDirectory, stream: WatchStream = .chats) throws -> (serial: Int64, count: Int)? {
        let text = try String(contentsOfFile: home.file("watch-\(account).lock"), encoding: .utf8)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 4, parts[0] == "page", parts[1] == stream.rawValue, let serial = Int64(parts[2]),
                let count = Int(parts[3])
            else { continue }
            return (serial, count)
        }
        return nil
    }

    /// The page `stream` is handing over, as the log's row keeps it, read by a connection of
    /// its own, as the next process reads it.
    func handingOver(in home: TemporaryDirectory, stream: WatchStream = .chats) throws -> HandingOver.Page? {
        let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false)
        return try connection.readTransaction {
            try HandingOver.page(account: account.description, stream: stream, connection)
        }
    }

    @Test func aKillAfterTwoOfFiveTakesTheOtherThreeOutAndPutsTheCursorBack() async throws {
        let home = try home()
        do {
            let (log, lease) = try await watch(home)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            page.handedOverNext()
            page.handedOverNext()
        }  // killed: the page is dropped without a word

        let (log, lease) = try await watch(home)
        #expect(try await log.shown(among: listed, account: account) == Set(ids), "all five recorded before the kill")
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 3)
        #expect(try await log.shown(among: listed, account: account) == Set(ids[..<2]))
        #expect(try await log.watchCursor(account: account, stream: .chats) == from)
        #expect(
            try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 0, "settled once")
        #expect(try await log.watchCursor(account: account, stream: .chats) == from)
    }

    /// What a socket brought, killed before it was handed over: taken out again, so the
    /// listing that finds it in a block shows it; handed over, it is skipped there for good.
    @Test func aPooledNotificationKilledBeforeItsHandOverIsShownFromItsBlock() async throws {
        let home = try home()
        let (lost, kept) = (ids[0], ids[1])
        do {
            let (log, lease) = try await watch(home)
            _ = try await log.recordPooled([kept], account: account, at: 1, stream: .socket, lease: lease)
                .handedOverNext()
            _ = try await log.recordPooled([lost], account: account, at: 2, stream: .socket, lease: lease)
        }  // killed while `lost` was being handed over
        let (log, lease) = try await watch(home)
        #expect(try await log.shown(pooled: [lost, kept], account: account, fromHeight: 40) == [lost, kept])
        #expect(try await log.recoverInterruptedPage(account: account, stream: .socket, lease: lease) == 1)
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
        let (log, lease) = try await watch(home)
        let page = try await log.recordWatched(
            listed, account: account, from: from, to: past, stream: .chats, lease: lease)
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
            let (log, lease) = try await watch(home)
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            for _ in ids { page.handedOverNext() }
            page.handedOverNext()  // one more than the page has: nothing
        }
        let (log, lease) = try await watch(home)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 0)
        #expect(try await log.shown(among: listed, account: account) == Set(ids))
        #expect(try await log.watchCursor(account: account, stream: .chats) == past)
    }

    /// A listing hands over one page at a time: the next page's row replaces the last one's,
    /// and a kill in a shorter page after a longer one settles just its own.
    @Test func aShorterPageReplacesALongerOne() async throws {
        let home = try home()
        let later = (6...7).map { WatchedTransaction(id: TransactionID(number: 2000 + UInt64($0)), height: 44) }
        do {
            let (log, lease) = try await watch(home)
            let long = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            for _ in ids { long.handedOverNext() }
            let short = try await log.recordWatched(
                later, account: account, from: past, to: WatchCursor(height: 45), stream: .chats, lease: lease)
            short.handedOverNext()  // killed then
        }
        let row = try #require(try handingOver(in: home))
        #expect(row.from == past && row.ids == later.map(\.id))
        #expect(try counted(in: home)! == (row.serial, 1), "the short page's serial, one handed over")
        let (log, lease) = try await watch(home)
        #expect(
            try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 1,
            "the short page's second"
        )
        #expect(try await log.watchCursor(account: account, stream: .chats) == past)
        #expect(try await log.shown(among: listed, account: account) == Set(ids), "the long page stays shown")
        #expect(try handingOver(in: home) == nil)
    }

    /// Each notification handed over is counted in the lease's file, written, before
    /// `handedOverNext` returns: a process killed right after it does not hand that one over
    /// again.
    @Test func eachHandOverIsWrittenBeforeItsCallReturns() async throws {
        let home = try home()
        let (log, lease) = try await watch(home)
        let page = try await log.recordWatched(
            listed, account: account, from: from, to: past, stream: .chats, lease: lease)
        let row = try #require(try handingOver(in: home))
        #expect(row.from == from && row.ids == ids && row.countedHere == 0)
        #expect(try counted(in: home) == nil, "nothing counted before the first")
        for count in 1...ids.count {
            page.handedOverNext()
            #expect(try counted(in: home)! == (row.serial, count))
        }
        page.handedOverNext()  // one more than the page has: nothing
        #expect(try counted(in: home)! == (row.serial, ids.count))
    }

    /// The clean stop takes the rest out itself; the next start has nothing more to do.
    @Test func aStopInTheMiddleTakesTheRestOutAtOnce() async throws {
        let home = try home()
        let (log, lease) = try await watch(home)
        let page = try await log.recordWatched(
            listed, account: account, from: from, to: past, stream: .chats, lease: lease)
        page.handedOverNext()
        try await page.takeBackTheRest()
        #expect(try await log.shown(among: listed, account: account) == [ids[0]])
        #expect(try await log.watchCursor(account: account, stream: .chats) == from)
        #expect(try handingOver(in: home) == nil, "nothing left to settle")
        try await log.setWatchCursor(past, account: account, stream: .chats)  // read on since
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 0)
        #expect(try await log.watchCursor(account: account, stream: .chats) == past, "not put back a second time")
    }

    /// A page with notifications shown before (one for a push, one by an earlier page) records
    /// and counts only the others, and says which it skipped: a kill in its middle takes out
    /// none of the earlier showings.
    @Test func aPageRecordsOnlyWhatWasNotShownBefore() async throws {
        let home = try home()
        do {
            let (log, lease) = try await watch(home)
            _ = try await log.recordShown(ids[1], account: account, pushed: true, at: 1)
            let earlier = try await log.recordWatched(
                [listed[3]], account: account, from: WatchCursor(height: 30), to: from, stream: .chats, lease: lease)
            earlier.handedOverNext()
            let page = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            #expect(page.shownBefore == [ids[1], ids[3]])
            #expect(try handingOver(in: home)?.ids == [ids[0], ids[2], ids[4]], "in the page's order")
            page.handedOverNext()
        }  // killed after the first of the three
        let (log, lease) = try await watch(home)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 2)
        #expect(try await log.shown(among: listed, account: account) == [ids[0], ids[1], ids[3]])
        #expect(try await log.watchCursor(account: account, stream: .chats) == from)
    }

    /// A listing read again with nothing new (a poll's last blocks) writes nothing: the last
    /// page's row stays as it was, and so does the cursor; not one byte of the WAL changes.
    @Test func aPageReadAgainToNoAvailWritesNothing() async throws {
        let home = try home()
        let (log, lease) = try await watch(home)
        let page = try await log.recordWatched(
            listed, account: account, from: from, to: past, stream: .chats, lease: lease)
        for _ in ids { page.handedOverNext() }
        let wal = URL(fileURLWithPath: home.file(NotificationLog.fileName + "-wal"))
        let written = try Data(contentsOf: wal)
        let row = try #require(try handingOver(in: home))

        let again = try await log.recordWatched(
            listed, account: account, from: past, to: past, stream: .chats, lease: lease)
        #expect(again.shownBefore == Set(ids))
        again.handedOverNext()  // nothing to count
        #expect(try Data(contentsOf: wal) == written)
        #expect(try handingOver(in: home) == row)
        #expect(try counted(in: home)! == (row.serial, ids.count))
        #expect(try await log.watchCursor(account: account, stream: .chats) == past)

        let moved = WatchCursor(height: 44, skip: 1)
        _ = try await log.recordWatched(listed, account: account, from: past, to: moved, stream: .chats, lease: lease)
        #expect(try await log.watchCursor(account: account, stream: .chats) == moved, "a cursor that moves is kept")
        let empty = try #require(try handingOver(in: home))
        #expect(empty.from == past && empty.ids.isEmpty && empty.serial != row.serial)
    }

    /// Each listing has its own page: settling one leaves the other's alone.
    @Test func listingsAndAccountsHaveTheirOwnPages() async throws {
        let home = try home()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "another account")).address
        do {
            let (log, lease) = try await watch(home)
            let otherLease = try log.leaseWatch(account: other)
            _ = try await log.recordWatched(
                listed, account: account, from: from, to: past, stream: .chats, lease: lease)
            _ = try await log.recordWatched(
                [listed[0]], account: other, from: from, to: past, stream: .chats, lease: otherLease)
        }
        let (log, lease) = try await watch(home)
        let otherLease = try await nextLease(log, other)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .transfers, lease: lease) == 0)
        #expect(try await log.recoverInterruptedPage(account: other, stream: .chats, lease: otherLease) == 1)
        #expect(try await log.recoverInterruptedPage(account: account, stream: .chats, lease: lease) == 5)
    }

    /// A push fetched after the watch handed its transaction over is a duplicate, found in the
    /// page that reaches its block; a push the watch comes to later is skipped, found by its id.
    @Test func pushesAndTheWatchSeeEachOthersShowings() async throws {
        let home = try home()
        let other = KeyPair(passphrase: Passphrase(unvalidated: "another account")).address
        let (log, lease) = try await watch(home)
        let page = try await log.recordWatched(
            listed, account: account, from: from, to: past, stream: .chats, lease: lease)
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

    /// Pages are checked and recorded in statements of 100 rows: a longer one, and a short
    /// one, are each matched by id and block, every row of them.
    @Test(arguments: [3, 100, 101, 250])
    func aPageOfAnyLengthIsCheckedByIdAndBlock(count: Int) async throws {
        let home = try home()
        let (log, lease) = try await watch(home)
        let page = (0..<count).map {
            WatchedTransaction(id: TransactionID(number: UInt64(5000 + $0)), height: 60 + Int64($0 / 7))
        }
        let recorded = try await log.recordWatched(
            page, account: account, from: WatchCursor(height: 60), to: WatchCursor(height: 99), stream: .chats,
            lease: lease)
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
