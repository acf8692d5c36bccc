package import AdamantCore
import Synchronization

extension NodePool {
    /// A usable node with a client socket, and where the socket is.
    package struct SocketNode: Sendable, Hashable {
        package let url: NodeURL
        package let origin: String
    }

    /// The usable nodes whose last status gives a client socket, best first.
    package var socketNodes: [SocketNode] {
        state.withLock { $0.ranked() }.compactMap { report in
            report.status?.socketPort.map { SocketNode(url: report.url, origin: report.url.socketOrigin(port: $0)) }
        }
    }

    /// A connection to `node`'s socket over this pool's transport and clock, its handshake
    /// and posts timed as the route allows.
    package func socket(to node: SocketNode, addresses: [Address], types: [Int]) -> SocketConnection {
        var session = SocketSession.Configuration()
        session.requestTimeout = allowing(session.requestTimeout)
        return SocketConnection(
            origin: node.origin, addresses: addresses, types: types, transport: transport, clock: clock,
            configuration: session,
            hop: configuration.route.hop(to: node.url), circuit: configuration.circuit)
    }

    /// A node whose socket said something false (a transaction that does not verify): ranked
    /// down as a node whose answer failed verification is.
    package func distrust(_ url: NodeURL, because detail: String) {
        recordFailure(of: url, .unverifiable(detail))
    }
}
