@testable import AdamantDevnet
import AdamantCore
import Foundation
import Testing

/// Issue 7 finding 7: connections that are never answered, or never used, must not keep their
/// threads. Counted in an `adm-devnet` child, whose threads are its own (the test process runs
/// other suites' devnets at the same time).
@Suite(.timeLimit(.minutes(2)))
struct ConnectionTests {
    /// Starts `adm-devnet start` with one blackholed node and waits until its thread count settles.
    struct DevnetChild {
        let child: Child
        let node: String
        let baseline: Int

        init(_ extra: [String] = []) throws {
            child = try Child(["start", "--quiet", "--nodes", "1", "--fault", "0:blackhole"] + extra)
            let ready = try JSON.parse(Array(try #require(child.readLine()).utf8))
            node = try #require(ready["nodes"]?.arrayValue.first?.stringValue)
            let control = try #require(ready["control"]?.stringValue)
            for _ in 0..<3 { _ = try HTTPClient.send("GET", control + "/") }
            baseline = try Self.settledThreadCount(of: child.process.processIdentifier)
        }

        var threads: Int { Self.threadCount(of: child.process.processIdentifier) }

        static func threadCount(of pid: Int32) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
        }

        /// The count once it has stayed put for a moment (threads of the runtime start lazily).
        static func settledThreadCount(of pid: Int32) throws -> Int {
            var last = threadCount(of: pid), steady = 0
            let settled = eventually(within: 10) {
                let now = threadCount(of: pid)
                steady = now == last ? steady + 1 : 0
                last = now
                return steady >= 20
            }
            try #require(settled)
            return last
        }
    }

    static let margin = 3

    @Test func abandonedRequestsToABlackholedNodeReleaseTheirThreads() throws {
        let devnet = try DevnetChild(["--max-connections", "1000"])
        var connections = try (0..<300).map { _ in try HTTPConnection(url: devnet.node) }
        for connection in connections { connection.sendWithoutWaiting("GET", "/api/node/status") }
        #expect(eventually(within: 20) { devnet.threads >= devnet.baseline + 290 }, "\(devnet.threads) threads, baseline \(devnet.baseline)")
        connections.removeAll()  // the clients go away
        #expect(eventually(within: 20) { devnet.threads <= devnet.baseline + Self.margin }, "\(devnet.threads) threads, baseline \(devnet.baseline)")
    }

    @Test func idleConnectionsTimeOut() throws {
        let devnet = try DevnetChild(["--connection-timeout", "1", "--max-connections", "1000"])
        let connections = try (0..<200).map { _ in try HTTPConnection(url: devnet.node) }
        #expect(eventually(within: 20) { devnet.threads >= devnet.baseline + 190 }, "\(devnet.threads) threads, baseline \(devnet.baseline)")
        // Still open on this side: the server closes them.
        #expect(eventually(within: 20) { devnet.threads <= devnet.baseline + Self.margin }, "\(devnet.threads) threads, baseline \(devnet.baseline)")
        #expect(connections.allSatisfy { $0.isClosedByPeer(within: 5) })
    }

    /// A request the blackhole holds is let go when the connection times out, not held forever.
    @Test func aHeldRequestEndsAtTheConnectionTimeout() throws {
        let devnet = try DevnetChild(["--connection-timeout", "1"])
        let connection = try HTTPConnection(url: devnet.node)
        connection.sendWithoutWaiting("GET", "/api/node/status")
        #expect(connection.isClosedByPeer(within: 10))
        #expect(eventually(within: 10) { devnet.threads <= devnet.baseline + Self.margin })
    }

    /// Beyond the cap a connection's request is answered 503 and the connection closed; the
    /// connections within it are served, and once some close, new ones are too.
    @Test func connectionsBeyondTheCapAreAnswered503() throws {
        let network = try TestNetwork(nodes: 1) { $0.maxConnections = 4 }
        var idle = try (0..<4).map { _ in try HTTPConnection(url: network.node) }
        #expect(try eventually {
            let reply = try HTTPClient.send("GET", network.node + "/api/blocks/getHeight")
            return reply.status == 503 && reply.headers["connection"]?.lowercased() == "close"
                && reply.error == "too many connections: this server takes 4 at once"
        })
        #expect(try idle[0].send("GET", "/api/blocks/getHeight").status == 200)
        idle.removeAll()
        #expect(try eventually { try network.get("/api/blocks/getHeight").status == 200 })
    }
}
