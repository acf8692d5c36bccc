@testable import AdamantNodes
import Synchronization
import Testing

@Suite struct ConcurrentMapTests {
    /// Each run starts only once the run after it has finished, so the runs finish last first
    /// (and a map that ran them one after another would never finish); the results still come
    /// in the array's order.
    @Test(.timeLimit(.minutes(1)), arguments: [(count: 8, runs: 8), (count: 12, runs: 3)])
    func theResultsKeepTheArraysOrderWhateverOrderTheyFinishIn(count: Int, runs: Int) async {
        let length = (count + runs - 1) / runs
        let done = (0..<count).map { _ in OneShot<Void>() }
        let finished = Finished()
        let mapped = await Array(0..<count).concurrentMap(runs: runs) { index in
            let endOfNextRun = Swift.min((index / length + 2) * length, count) - 1
            if index % length == 0, endOfNextRun > index + length - 1 { await done[endOfNextRun].value(orOnCancel: ()) }
            finished.order.withLock { $0.append(index) }
            done[index].deliver(())
            return "element \(index)"
        }
        let runStarts = Array(stride(from: 0, to: count, by: length))
        #expect(finished.order.withLock { $0 } == runStarts.reversed().flatMap { $0..<Swift.min($0 + length, count) })
        #expect(mapped == (0..<count).map { "element \($0)" })
    }

    @Test func anEmptyArrayOrOneElementIsMappedInPlace() async {
        #expect(await [Int]().concurrentMap { $0 + 1 } == [])
        #expect(await [41].concurrentMap { $0 + 1 } == [42])
    }

    private final class Finished: Sendable {
        let order = Mutex<[Int]>([])
    }
}
