import AdamantCore
import AdamantNodes
import Synchronization

/// Hands each account's watch what the shared sockets bring: their comings and goings (logged
/// here, once for all), and the transactions to its account (verified by the socket, which
/// sets a node aside for one that does not verify); the accounts' own outgoing ones are
/// dropped quietly. Called from every socket's task at once.
final class SocketDispatch: Sendable {
    private let routes: [(account: Address, inbox: AsyncStream<Watcher.Wake>.Continuation)]
    private let events: any LogSink
    private let polling: Duration
    private let setAsideFor: Duration
    private let live = Mutex<Set<NodeURL>>([])

    init(
        routes: [(account: Address, inbox: AsyncStream<Watcher.Wake>.Continuation)], events: any LogSink,
        polling: Duration, setAsideFor: Duration
    ) {
        self.routes = routes
        self.events = events
        self.polling = polling
        self.setAsideFor = setAsideFor
    }

    func handle(_ event: LiveFeed.Event) {
        switch event {
        case .live(let node):
            live.withLock { _ = $0.insert(node) }
            events.log(.info, "watch: live on \(node)'s socket")
            for route in routes { route.inbox.yield(.socket(.live(node))) }
        case .down(let node, let end):
            let (was, noneLeft) = live.withLock { live in (live.remove(node) != nil, live.isEmpty) }
            guard was else { return }
            events.log(
                .info, "watch: \(node)'s socket is down (\(end))" + (noneLeft ? "; polling every \(polling)" : ""))
            for route in routes { route.inbox.yield(.socket(.down(node, end))) }
        case .setAside(let node, let reason):
            events.log(.warning, "watch: \(node)'s socket is set aside for \(setAsideFor): \(reason)")
        case .paced(let node, let why):
            events.log(.info, "watch: \(node)'s socket: \(why)")
        case .received(let transaction, let id, let node):
            for route in routes where transaction.recipientId == route.account {
                route.inbox.yield(.socket(.admitted(transaction, id, from: node)))
            }
        }
    }
}
