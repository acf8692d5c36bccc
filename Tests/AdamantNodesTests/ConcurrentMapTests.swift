import Synchronization
import Testing

@testable import AdamantNodes

@Suite struct ConcurrentMapTests {
    /// Each element finishes only after the one after it, so they finish last first (and a
    /// map that ran fewer at once than there are elements would never finish); the results
    /// still come in the array's order.
    @Test(.timeLimit(.minutes(1)))
    func theResultsKeepTheArraysOrderWhateverOrderTheyFinishIn() async {
        let count = 8
        let done = (0..<count).map { _ in OneShot<Void>() }
        let finished = Finished()
        let mapped = await Array(0..<count).concurrentMap(workers: count) { index in
            if index + 1 < count { await done[index + 1].value(orOnCancel: ()) }
            finished.order.withLock { $0.append(index) }
            done[index].deliver(())
            return "element \(index)"
        }
        #expect(finished.order.withLock { $0 } == Array((0..<count).reversed()))
        #expect(mapped == (0..<count).map { "element \($0)" })
    }

    /// Fewer workers than elements: every element is mapped once, by whichever worker is free,
    /// and one slow element holds up no other.
    @Test(.timeLimit(.minutes(1)), arguments: [2, 3, 16])
    func everyElementIsMappedOnceAndASlowOneHoldsUpNoOther(workers: Int) async {
        let count = 1_000
        let slowDone = OneShot<Void>()
        let calls = Finished()
        let mapped = await Array(0..<count).concurrentMap(workers: workers) { index in
            // The first waits until every other element is mapped: the other workers take them all.
            if index == 0 { await slowDone.value(orOnCancel: ()) }
            let all = calls.order.withLock { order in
                order.append(index)
                return order.count == count - 1
            }
            if all { slowDone.deliver(()) }
            return index * 2
        }
        #expect(mapped == (0..<count).map { $0 * 2 })
        #expect(calls.order.withLock { $0 }.sorted() == Array(0..<count))
    }

    @Test func anEmptyArrayOrOneElementIsMappedInPlace() async {
        #expect(await [Int]().concurrentMap { $0 + 1 } == [])
        #expect(await [41].concurrentMap { $0 + 1 } == [42])
    }

    private final class Finished: Sendable {
        let order = Mutex<[Int]>([])
    }
}
