import AdamantCore
import AdamantStore
import Testing

@testable import AdamantFetch

/// The paging rules, without a node: by position while pages are full, ties at a page's end
/// read again, the height moved up only when caught up and only past the re-read margin.
@Suite("Watch scan")
struct WatchScanTests {
    static let key = KeyPair(passphrase: Passphrase(unvalidated: "watch scan")).publicKey

    static func row(height: Int64, timestamp: Int32) -> Transaction {
        var transaction = Transaction(
            type: .transfer, amount: 1, senderPublicKey: key, recipientId: nil, timestamp: timestamp)
        transaction.height = height
        return transaction
    }

    @Test func aFullPageMovesOnByPositionAndRereadsItsTrailingTies() {
        let page = (0..<10).map { Self.row(height: 100 + Int64($0), timestamp: $0 < 8 ? Int32($0) : 50) }
        let (next, caughtUp) = WatchScan(WatchCursor(height: 100, skip: 5)).advanced(
            past: page, limit: 10, rereadBlocks: 3)
        #expect(!caughtUp)
        #expect(next.cursor == WatchCursor(height: 100, skip: 13), "the two rows tied at the end are asked for again")
        #expect(next.highestSeen == 109)
    }

    @Test func aWholePageOfOneTieStillMovesOn() {
        let page = (0..<10).map { _ in Self.row(height: 7, timestamp: 9) }
        #expect(
            WatchScan(WatchCursor(height: 7)).advanced(past: page, limit: 10, rereadBlocks: 3).scan.cursor
                == WatchCursor(height: 7, skip: 10))
    }

    @Test func caughtUpItMovesItsHeightUpKeepingTheMargin() {
        let page = [Self.row(height: 120, timestamp: 1), Self.row(height: 125, timestamp: 2)]
        let (next, caughtUp) = WatchScan(WatchCursor(height: 100, skip: 40)).advanced(
            past: page, limit: 10, rereadBlocks: 10)
        #expect(caughtUp)
        #expect(next.cursor == WatchCursor(height: 115, skip: 0))
    }

    @Test func caughtUpWithinTheMarginItKeepsItsPosition() {
        let page = [Self.row(height: 104, timestamp: 1), Self.row(height: 105, timestamp: 2)]
        let (next, caughtUp) = WatchScan(WatchCursor(height: 100, skip: 4)).advanced(
            past: page, limit: 10, rereadBlocks: 10)
        #expect(caughtUp)
        #expect(next.cursor == WatchCursor(height: 100, skip: 5), "the last row is read again")
        #expect(
            WatchScan(WatchCursor(height: 100, skip: 4)).advanced(past: [], limit: 10, rereadBlocks: 10).scan.cursor
                == WatchCursor(height: 100, skip: 4))
    }
}
