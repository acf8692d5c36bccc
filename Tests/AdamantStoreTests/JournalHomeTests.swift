import AdamantCore
import Foundation
import Testing

@testable import AdamantStore

/// A home that the release keeping each watch's page in a journal file left after its
/// watches were killed (Fixtures/README.md): a watch started on it resumes as that release's
/// would have. The rows below are what that release's settling made of a copy of it.
@Suite("A home of the journal's release")
struct JournalHomeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/JournalHome")
    let killed = try! Address("U9048493217259402163")
    let whole = try! Address("U16607082699837779923")

    /// A copy of the fixture, private as a home is.
    func home() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory.privateHome()
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path) {
            try FileManager.default.copyItem(
                atPath: Self.fixture.appendingPathComponent(name).path, toPath: home.file(name))
            chmod(home.file(name), 0o600)
        }
        return home
    }

    /// Opening the log settles each journal and deletes it: the watches that start then find
    /// nothing more to settle.
    @Test func aWatchStartedOnItResumesAsTheReleaseWould() async throws {
        let home = try home()
        let log = try NotificationLog(home: home.path)
        #expect(try journals(in: home).isEmpty, "settled as the log opened, and deleted")
        for account in [killed, whole] {
            let lease = try log.leaseWatch(account: account)
            for stream in ["chats", "transfers", "socket"] {
                #expect(try await log.settleWatched(account: account, stream: stream, lease: lease) == 0)
            }
        }
        try await expectResumedAsTheReleaseWould(log, home)
    }

    /// The same home opened while the killed account's watch still runs (the release's, which
    /// holds its lease and writes its journals): its journals are left to the watch that
    /// follows it, which settles them as it starts, to the same end.
    @Test func aWatchStillRunningHasItsJournalsSettledByTheNextOne() async throws {
        let home = try home()
        do {
            let running = try WatchLease(home: home.path, account: killed)
            _ = try NotificationLog(home: home.path)
            #expect(try journals(in: home).count == 3, "the running watch's three")
            withExtendedLifetime(running) {}
        }
        let lease = try await nextLease(home: home.path, killed)
        // This watch opened the log while the last one ran, and took the lease once it ended.
        let log = try NotificationLog(home: home.path)
        var settled: [String: Int] = [:]
        for stream in ["chats", "transfers", "socket"] {
            settled[stream] = try await log.settleWatched(account: killed, stream: stream, lease: lease)
        }
        #expect(settled == ["chats": 3, "transfers": 2, "socket": 1])
        #expect(try journals(in: home).isEmpty)
        withExtendedLifetime(lease) {}
        try await expectResumedAsTheReleaseWould(log, home)
    }

    func journals(in home: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasSuffix(".journal") }
    }

    /// What a watch of either account resumes from, and every row of the log, as the release
    /// left them.
    func expectResumedAsTheReleaseWould(_ log: NotificationLog, _ home: TemporaryDirectory) async throws {
        #expect(try await log.watchCursor(account: killed, stream: "chats") == WatchCursor(height: 32))
        #expect(try await log.watchCursor(account: killed, stream: "transfers") == WatchCursor(height: 30, skip: 1))
        #expect(try await log.watchCursor(account: whole, stream: "chats") == WatchCursor(height: 52))
        let chats: [(UInt64, Int64)] = [
            (101, 30), (102, 30), (103, 31), (104, 32), (900, 33), (105, 33), (106, 33), (107, 34), (108, 34),
        ]
        #expect(
            try await log.shown(among: chats.map(Self.watched), account: killed)
                == Set([101, 102, 103, 104, 105, 900].map(TransactionID.init(number:))))
        let transfers: [(UInt64, Int64)] = [(301, 30), (302, 31), (303, 31)]
        #expect(
            try await log.shown(among: transfers.map(Self.watched), account: killed) == [TransactionID(number: 301)])
        let pooled = [201, 202].map(TransactionID.init(number:))
        #expect(try await log.shown(pooled: pooled, account: killed, fromHeight: 0) == [TransactionID(number: 201)])
        let lease = try log.leaseWatch(account: whole)
        #expect(lease.heldBefore && lease.keptHeight == nil, "its journals showed a watch of it ran here")
        #expect(
            try String(contentsOfFile: home.file("watch-\(killed).lock"), encoding: .utf8).hasSuffix("\nblock 30\n"))

        let rows = try Self.rows(in: home)
        #expect(rows.shown == Self.settledShown)
        #expect(rows.pages == Self.settledPages)
        #expect(rows.cursors == Self.settledCursors)
        #expect(rows.others == Self.settledOthers)
        #expect(rows.handingOver.isEmpty, "nothing left to settle")
        withExtendedLifetime(lease) {}
    }

    static func watched(_ pair: (UInt64, Int64)) -> WatchedTransaction {
        WatchedTransaction(id: TransactionID(number: pair.0), height: pair.1)
    }

    /// Every row of the log's tables, the watched pages' ids unpacked.
    static func rows(in home: TemporaryDirectory) throws -> (
        shown: [[SQLiteValue]], pages: [[SQLiteValue]], cursors: [[SQLiteValue]], others: [[SQLiteValue]],
        handingOver: [[SQLiteValue]]
    ) {
        let connection = try SQLiteConnection(path: home.file(NotificationLog.fileName), create: false)
        let pages = try connection.query("SELECT account, first, last, ids FROM watched_pages ORDER BY rowid").map {
            row in
            Array(row.prefix(3)) + WatchedPages.ids(in: row.blob(3) ?? []).map { .integer(Int64($0.number)) }
        }
        return (
            try connection.query("SELECT account, id, shown_at, pushed, height FROM shown ORDER BY account, id"), pages,
            try connection.query("SELECT account, stream, height, skip FROM watch_cursors ORDER BY account, stream"),
            try connection.query("SELECT account, id, at FROM undelivered")
                + connection.query("SELECT account, partner, until FROM muted_chats")
                + connection.query("SELECT address, length(public_key) FROM public_keys"),
            try connection.query("SELECT account, stream FROM handing_over")
        )
    }

    // What the release's `settleWatched`, called for each account and stream, left.
    static let settledShown: [[SQLiteValue]] = [
        [.text("U9048493217259402163"), .integer(201), .integer(2000), .integer(0), .null],
        [.text("U9048493217259402163"), .integer(900), .integer(1000), .integer(1), .integer(33)],
        [.text("U9048493217259402163"), .integer(901), .integer(1001), .integer(0), .null],
    ]
    static let settledPages: [[SQLiteValue]] = [
        [.text("U9048493217259402163"), .integer(30), .integer(31), .integer(101), .integer(102), .integer(103)],
        [.text("U9048493217259402163"), .integer(32), .integer(34), .integer(104), .integer(105)],
        [.text("U9048493217259402163"), .integer(30), .integer(31), .integer(301)],
        [.text("U16607082699837779923"), .integer(50), .integer(51), .integer(401), .integer(402)],
    ]
    static let settledCursors: [[SQLiteValue]] = [
        [.text("U16607082699837779923"), .text("chats"), .integer(52), .integer(0)],
        [.text("U9048493217259402163"), .text("chats"), .integer(32), .integer(0)],
        [.text("U9048493217259402163"), .text("socket"), .integer(0), .integer(0)],
        [.text("U9048493217259402163"), .text("transfers"), .integer(30), .integer(1)],
    ]
    static let settledOthers: [[SQLiteValue]] = [
        [.text("U9048493217259402163"), .integer(902), .integer(1002)],
        [.text("U9048493217259402163"), .text("U16607082699837779923"), .integer(9_000_000_000_000)],
        [.text("U11970233475072083903"), .integer(32)],
    ]
}
