import AdamantCore

/// The ids seen within the last `memory`, forgotten oldest first. They are noted as time goes
/// on, so forgetting walks from the front of the queue instead of passing over every id: a
/// node admitting hundreds of transactions a second holds tens of thousands of them.
struct RecentIDs {
    let memory: Duration
    private var seen = Set<TransactionID>()
    /// When each id in `seen` was noted, oldest first.
    private var queue: [(id: TransactionID, at: ContinuousClock.Instant)] = []
    private var head = 0

    init(memory: Duration) { self.memory = memory }

    var count: Int { seen.count }

    /// Forgets every id noted `memory` or longer before `now`.
    mutating func forget(at now: ContinuousClock.Instant) {
        while head < queue.count, now - queue[head].at >= memory {
            seen.remove(queue[head].id)
            head += 1
        }
        // The forgotten front is dropped once it is most of the queue: each entry moves once.
        if head > 64, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    /// Notes `id` at `now`; false when it was noted within `memory` already.
    mutating func insert(_ id: TransactionID, at now: ContinuousClock.Instant) -> Bool {
        guard seen.insert(id).inserted else { return false }
        queue.append((id, now))
        return true
    }
}
