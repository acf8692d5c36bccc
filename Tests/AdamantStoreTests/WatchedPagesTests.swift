import AdamantCore
import Testing

@testable import AdamantStore

/// What `watch` handed over from blocks, kept a page to a row: found by id within the pages
/// that reach a block, taken out id by id, and carried over from the row-an-id table.
@Suite("Watched pages")
struct WatchedPagesTests {
    let account = KeyPair(passphrase: Passphrase(unvalidated: "watched pages")).address
    let other = KeyPair(passphrase: Passphrase(unvalidated: "another account")).address

    func page(_ numbers: ClosedRange<UInt64>, height: Int64) -> [WatchedTransaction] {
        numbers.map { WatchedTransaction(id: TransactionID(number: $0), height: height) }
    }

    func rows(in home: TemporaryDirectory) throws -> [[SQLiteValue]] {
        try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false)
            .query("SELECT account, first, last, length(ids) FROM watched_pages ORDER BY rowid")
    }

    @Test func aPageIsOneRowAndGoesWhenAllOfItIsTakenOut() async throws {
        let home = try TemporaryDirectory.privateHome()
        let log = try NotificationLog(home: home.path)
        let lease = try log.leaseWatch(account: account)
        let listed = page(1...60, height: 40) + page(61...100, height: 43)
        let whole = try await log.recordWatched(
            listed, account: account, from: WatchCursor(height: 39), to: WatchCursor(height: 44), stream: .chats,
            lease: lease)
        for _ in listed { whole.handedOverNext() }
        let cut = try await log.recordWatched(
            page(101...103, height: 44), account: account, from: WatchCursor(height: 44), to: WatchCursor(height: 45),
            stream: .chats, lease: lease)
        #expect(
            try rows(in: home) == [
                [.text(account.description), .integer(40), .integer(43), .integer(800)],
                [.text(account.description), .integer(44), .integer(44), .integer(24)],
            ])
        try await cut.takeBackTheRest()
        #expect(try rows(in: home).count == 1, "the emptied page's row is deleted")
        #expect(
            try await log.shown(among: listed, account: account) == Set(listed.map(\.id)),
            "the earlier page is untouched")
    }

    /// A row an id, as the third schema kept them, for two accounts: each account's in pages of
    /// a hundred in block order, found as before, and the old table gone.
    @Test func aLogOfTheThirdSchemaMovesItsRowsIntoPages() async throws {
        let home = try TemporaryDirectory.privateHome()
        let mine = (1...150).map {
            WatchedTransaction(id: TransactionID(number: UInt64.max - $0), height: 100 + Int64($0 / 10))
        }
        let theirs = [WatchedTransaction(id: TransactionID(number: 7), height: 5)]
        do {
            let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: true)
            try connection.migrate(Array(NotificationLog.migrations.prefix(3)))
            for (address, rows) in [(account, mine), (other, theirs)] {
                for row in rows {
                    try connection.query(
                        "INSERT INTO watched (account, height, id) VALUES (?1, ?2, ?3)",
                        [.text(address.description), .integer(row.height), .integer(Int64(bitPattern: row.id.number))])
                }
            }
        }
        let log = try NotificationLog(home: home.path)
        let pages = try rows(in: home).filter { $0.first == .text(account.description) }
        #expect(pages.map { $0[3] } == [.integer(800), .integer(400)], "a hundred, then the fifty left")
        #expect(pages.first?[1] == .integer(100) && pages.last?[2] == .integer(115))
        #expect(try await log.shown(among: mine, account: account) == Set(mine.map(\.id)))
        #expect(try await log.shown(among: theirs, account: other) == [theirs[0].id])
        #expect(try await log.shown(among: theirs, account: account).isEmpty)
        #expect(
            try await log.recordShown(mine[149].id, account: account, pushed: true, at: 1, height: 115),
            "a push finds it by its block")
        let tables = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false)
            .query("SELECT name FROM sqlite_schema WHERE name = 'watched'")
        #expect(tables.isEmpty)
    }

    @Test func idsArePackedLittleEndianAndARaggedTailIsNone() {
        let ids = [TransactionID(number: 0x0102_0304_0506_0708), TransactionID(number: 9)]
        let bytes = WatchedPages.bytes(of: ids)
        #expect(bytes == [8, 7, 6, 5, 4, 3, 2, 1, 9, 0, 0, 0, 0, 0, 0, 0])
        #expect(WatchedPages.ids(in: bytes) == ids)
        #expect(WatchedPages.ids(in: bytes + [1, 2, 3]) == ids)
        #expect(WatchedPages.ids(in: [1, 2, 3]).isEmpty)
    }
}
