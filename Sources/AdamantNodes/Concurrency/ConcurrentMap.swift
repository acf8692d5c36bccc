import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Array where Element: Sendable {
    /// `transform` of every element, in the array's order whatever order they finish in, by
    /// `workers` tasks at once that each take the next element not yet taken. A task per
    /// element, or per fixed run of them, cost about as much as a short transform; taking
    /// one at a time from a shared index leaves no worker idle while another has a run left.
    package func concurrentMap<Mapped: Sendable>(
        workers: Int = processorCount, _ transform: @escaping @Sendable (Element) async -> Mapped
    ) async -> [Mapped] {
        let workers = Swift.min(Swift.max(workers, 1), count)
        guard workers > 1 else {
            var mapped: [Mapped] = []
            for element in self { mapped.append(await transform(element)) }
            return mapped
        }
        let next = NextIndex()
        return await withTaskGroup(of: [(index: Int, mapped: Mapped)].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var mapped: [(index: Int, mapped: Mapped)] = []
                    while case let index = next.take(), index < count {
                        mapped.append((index, await transform(self[index])))
                    }
                    return mapped
                }
            }
            var results = [Mapped?](repeating: nil, count: count)
            for await part in group {
                for (index, value) in part { results[index] = value }
            }
            // Each index below `count` was taken once, by a worker that returned it.
            return results.map { $0! }
        }
    }
}

/// The next element to map, shared by a map's workers.
private final class NextIndex: Sendable {
    private let value = Atomic<Int>(0)

    func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// The processors online, at least 1.
package let processorCount = Swift.max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
