#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Array where Element: Sendable {
    /// `transform` of every element, in the array's order whatever order they finish in. The
    /// array is cut into at most `runs` runs of neighbours, mapped at once, each run's elements
    /// one after another: a task per element costs about as much as a short transform, and
    /// several runs per core keep the last one to finish from leaving the other cores idle.
    package func concurrentMap<Mapped: Sendable>(
        runs: Int = 16 * processorCount, _ transform: @escaping @Sendable (Element) async -> Mapped
    ) async -> [Mapped] {
        let runs = Swift.max(runs, 1)
        let length = (count + runs - 1) / runs
        guard length < count else {
            var mapped: [Mapped] = []
            for element in self { mapped.append(await transform(element)) }
            return mapped
        }
        return await withTaskGroup(of: (start: Int, mapped: [Mapped]).self) { group in
            for start in stride(from: 0, to: count, by: length) {
                let run = self[start..<Swift.min(start + length, count)]
                group.addTask {
                    var mapped: [Mapped] = []
                    mapped.reserveCapacity(run.count)
                    for element in run { mapped.append(await transform(element)) }
                    return (start, mapped)
                }
            }
            var finished: [(start: Int, mapped: [Mapped])] = []
            for await run in group { finished.append(run) }
            return finished.sorted { $0.start < $1.start }.flatMap(\.mapped)
        }
    }
}

/// The processors online, at least 1.
package let processorCount = Swift.max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
