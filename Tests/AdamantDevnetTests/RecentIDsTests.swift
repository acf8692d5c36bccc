import AdamantCore
import Testing

@testable import AdamantDevnet

/// The socket's memory of announced ids: once a minute per id, and no more kept than that minute's.
struct RecentIDsTests {
    let start = ContinuousClock.now
    var recent = RecentIDs(memory: .seconds(60))

    /// Whether `id` is taken as new `second`s after the start, as the hub asks on each admission.
    mutating func note(_ id: UInt64, at second: Int) -> Bool {
        recent.forget(at: start + .seconds(second))
        return recent.insert(TransactionID(number: id), at: start + .seconds(second))
    }

    @Test mutating func anIdIsRefusedWithinTheMemoryAndTakenAgainAfterIt() {
        let noted = [note(7, at: 0), note(7, at: 59), note(7, at: 60), note(7, at: 61)]
        #expect(noted == [true, false, true, false])
    }

    @Test mutating func whatIsKeptIsOneMemorysWorth() {
        let new = (0..<10_000).filter { note(UInt64($0), at: $0) }.count
        #expect(new == 10_000)
        #expect(recent.count == 60)
        let oldestKept = note(9_999 - 59, at: 9_999)
        let newestForgotten = note(9_999 - 60, at: 9_999)
        #expect(!oldestKept && newestForgotten)
    }
}
