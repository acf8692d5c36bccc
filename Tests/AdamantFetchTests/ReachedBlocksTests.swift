import Testing

@testable import AdamantFetch

/// Where the listings read at a transaction's time: what a late socket announcement is looked
/// for from.
@Suite struct ReachedBlocksTests {
    @Test func theFloorIsWhereTheListingsReadWhenTheTransactionWasSigned() {
        var reached = ReachedBlocks()
        #expect(reached.floor(at: 5_000) == nil, "none before the first read")
        for (second, floor) in [(10, 100), (20, 150), (30, 400)] {
            reached.add(Int64(floor), at: Int64(second) * 1_000)
        }
        #expect(reached.floor(at: 25_000) == 150, "the last read by then")
        #expect(reached.floor(at: 30_000) == 400)
        #expect(reached.floor(at: 99_000) == 400)
        #expect(reached.floor(at: 1_000) == 100, "before every read: the first (the socket brings nothing older)")
    }

    /// Older reads are let go, all but the newest of them, which answers for what came before.
    @Test func readsOlderThanTheSpanAreDroppedButTheNewestOfThem() {
        var reached = ReachedBlocks()
        for minute in 0...30 { reached.add(Int64(minute) * 10, at: Int64(minute) * 60_000) }
        // The span is 10 minutes back from minute 30: minute 19 is the newest older than it.
        #expect(reached.floor(at: 0) == 190)
        #expect(reached.floor(at: 25 * 60_000) == 250)
    }
}
