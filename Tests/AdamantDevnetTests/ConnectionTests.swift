import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// Connections that are never answered, or never used, must not keep their
/// threads. Counted in an `adm-devnet` child, whose threads are its own (the test process runs
/// other suites' devnets at the same time). The tests wait asynchronously, leaving the
/// cooperative pool to the suites alongside.
// One test at a time: each loads the machine enough on its own.
@Suite(.serialized, .ownThreads, .timeLimit(.minutes(2)))
struct ConnectionTests {
    /// Starts `adm-devnet start` with one blackholed node and waits until its thread count settles.
    struct DevnetChild {
        let child: Child
        let node: String
        let baseline: Int

        init(_ extra: [String] = []) async throws {
            child = try Child(["start", "--quiet", "--nodes", "1", "--fault", "0:blackhole"] + extra)
            let ready = try JSONValue.parse(Array(try #require(await child.nextLine()).utf8))
            node = try #require(ready["nodes"]?.arrayValue.first?.string)
            let control = try #require(ready["control"]?.string)
            for _ in 0..<3 { _ = try HTTPClient.send("GET", control + "/", timeout: 20) }
            baseline = try await Self.settledThreadCount(of: child.processIdentifier)
        }

        var threads: Int { Self.threadCount(of: child.processIdentifier) }

        static func threadCount(of pid: Int32) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
        }

        /// The count once it has stayed put for a moment (threads of the runtime start lazily).
        static func settledThreadCount(of pid: Int32) async throws -> Int {
            var last = threadCount(of: pid)
            var steady = 0
            let settled = await eventually(within: 30) {  // 10 s was too short on a loaded machine
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
    /// Sockets this process holds at once: many open descriptors make Foundation's
    /// `Process.run` crash in the suites spawning children alongside (swift-corelibs-foundation#5472).
    static let batch = 50

    /// 300 abandoned requests, 50 at a time: each batch is held while its clients wait, and its
    /// threads end when they leave.
    @Test func abandonedRequestsToABlackholedNodeReleaseTheirThreads() async throws {
        let devnet = try await DevnetChild()
        for round in 0..<(300 / Self.batch) {
            var connections = try (0..<Self.batch).map { _ in try HTTPConnection(url: devnet.node) }
            for connection in connections { connection.sendWithoutWaiting("GET", "/api/node/status") }
            #expect(
                await eventually(within: 20) { devnet.threads >= devnet.baseline + Self.batch - 5 },
                "round \(round): \(devnet.threads) threads, baseline \(devnet.baseline)")
            connections.removeAll()  // the clients go away
            #expect(
                await eventually(within: 20) { devnet.threads <= devnet.baseline + Self.margin },
                "round \(round): \(devnet.threads) threads, baseline \(devnet.baseline)")
        }
    }

    /// 200 idle sockets, 50 at a time, still open on this side: the server closes them.
    @Test func idleConnectionsTimeOut() async throws {
        let devnet = try await DevnetChild(["--connection-timeout", "2"])
        for round in 0..<(200 / Self.batch) {
            let connections = try (0..<Self.batch).map { _ in try HTTPConnection(url: devnet.node) }
            // The first ones may time out before the last are served: the peak shows they were held.
            var peak = 0
            _ = await eventually(within: 20) {
                peak = max(peak, devnet.threads)
                return peak >= devnet.baseline + Self.batch - 5
            }
            #expect(
                peak >= devnet.baseline + Self.batch / 2,
                "round \(round): peak \(peak) threads, baseline \(devnet.baseline)")
            #expect(
                await eventually(within: 20) { devnet.threads <= devnet.baseline + Self.margin },
                "round \(round): \(devnet.threads) threads, baseline \(devnet.baseline)")
            #expect(connections.allSatisfy { $0.isClosedByPeer(within: 5) })
        }
    }

    /// A request the blackhole holds is let go when the connection times out, not held forever.
    @Test func aHeldRequestEndsAtTheConnectionTimeout() async throws {
        let devnet = try await DevnetChild(["--connection-timeout", "1"])
        let connection = try HTTPConnection(url: devnet.node)
        connection.sendWithoutWaiting("GET", "/api/node/status")
        #expect(await eventually(within: 10) { connection.isClosedByPeer(within: 0.001) })
        #expect(await eventually(within: 10) { devnet.threads <= devnet.baseline + Self.margin })
    }

    /// Beyond the cap a connection's request is answered 503 and the connection closed; the
    /// connections within it are served, and once some close, new ones are too.
    @Test func connectionsBeyondTheCapAreAnswered503() async throws {
        let network = try TestNetwork(nodes: 1) { $0.maxConnections = 4 }
        var idle = try (0..<4).map { _ in try HTTPConnection(url: network.node) }
        #expect(
            await eventually(within: 20) {
                guard let reply = try? HTTPClient.send("GET", network.node + "/api/blocks/getHeight") else {
                    return false
                }
                return reply.status == 503 && reply.headers["connection"]?.lowercased() == "close"
                    && reply.error == "too many connections: this server takes 4 at once"
            })
        #expect(try idle[0].send("GET", "/api/blocks/getHeight", timeout: 20).status == 200)
        idle.removeAll()
        #expect(await eventually(within: 20) { (try? network.get("/api/blocks/getHeight"))?.status == 200 })
    }
}
