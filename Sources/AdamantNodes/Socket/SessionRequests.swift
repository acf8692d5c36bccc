import Synchronization

/// The requests a connection's sessions have out, so that a session that ends takes its
/// requests with it at once: a long poll of a session already over would otherwise hold its
/// transfer, and the worker thread doing it, until its timeout, and a node that drops sessions
/// quickly would pile them up.
final class SessionRequests: Sendable {
    private struct State {
        /// Sessions before this one have ended.
        var current = 0
        var nextKey = 0
        /// What each request out waits on to end early, by key, with its session.
        var out: [Int: (epoch: Int, end: OneShot<Void>)] = [:]
    }

    private let state = Mutex(State())

    /// `request`'s result, or nil once session `epoch` has ended (then `request` is cancelled,
    /// or never made).
    func run<T: Sendable>(epoch: Int, _ request: @escaping @Sendable () async -> T) async -> T? {
        let end = OneShot<Void>()
        let key = state.withLock { state -> Int? in
            guard epoch >= state.current else { return nil }
            state.nextKey += 1
            state.out[state.nextKey] = (epoch, end)
            return state.nextKey
        }
        guard let key else { return nil }
        defer { _ = state.withLock { $0.out.removeValue(forKey: key) } }
        return await withTaskGroup(of: T?.self) { group in
            group.addTask { await request() }
            group.addTask {
                await end.value(orOnCancel: ())
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Every session before `epoch` has ended: their requests end now.
    func endSessions(before epoch: Int) {
        let ended = state.withLock { state -> [OneShot<Void>] in
            state.current = max(state.current, epoch)
            let ended = state.out.filter { $0.value.epoch < state.current }
            for key in ended.keys { state.out[key] = nil }
            return ended.values.map(\.end)
        }
        for end in ended { end.deliver(()) }
    }
}
