import AdamantDevnet
import Foundation
import Testing

/// `adm-push nodes` and `adm-fetch nodes` against a local devnet with one healthy node and
/// one of each kind of unusable node.
@Suite("nodes", .timeLimit(.minutes(1)))
final class NodesCommandTests {
    let devnet: Devnet

    init() throws {
        var configuration = DevnetConfiguration()
        configuration.nodeCount = 4
        configuration.faults = [
            .init(node: 1, fault: try Fault(parsing: "nethash:" + String(repeating: "ab", count: 32))),
            .init(node: 2, fault: try Fault(parsing: "refuse")),
            .init(node: 3, fault: try Fault(parsing: "version:0.7.9")),
        ]
        devnet = try Devnet(configuration)
    }

    deinit { devnet.stop() }

    var nodeArguments: [String] { devnet.nodeURLs.flatMap { ["--node", $0] } }

    struct Report: Decodable {
        struct Node: Decodable {
            let url: String
            let status: String
            let reason: String?
            let height: Int64?
            let version: String?
        }
        let nodes: [Node]
    }

    @Test func reportsEachNodeAndWhyItCannotBeUsed() async throws {
        let result = try await run("adm-push", ["nodes", "--json"] + nodeArguments)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        #expect(report.nodes.map(\.url) == devnet.nodeURLs)
        #expect(report.nodes.map(\.status) == ["usable", "wrongNetwork", "offline", "outdated"])
        #expect(report.nodes[0].reason == nil && report.nodes[0].version == "0.10.3" && report.nodes[0].height != nil)
        #expect(report.nodes[3].reason == "outdated: version 0.7.9 is older than 0.8.0")

        // Only the given nodes were asked, and only for their status.
        for index in [0, 1, 3] {
            let requests = try devnet.requests(toNode: index)
            #expect(!requests.isEmpty && requests.allSatisfy { $0.method == "GET" && $0.path == "/api/node/status" })
        }
    }

    @Test func printsATable() async throws {
        let result = try await run(
            "adm-fetch", ["nodes"], environment: ["ADM_NODES": devnet.nodeURLs.joined(separator: ",")])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("URL") == true && lines.count == 5)
        #expect(lines[1].contains("usable") && lines[3].contains("offline"))
    }

    @Test func exitsUnavailableWhenNoNodeIsUsable() async throws {
        let result = try await run("adm-push", ["nodes", "--node", devnet.nodeURLs[2]])
        #expect(result.status == 69)
    }

    /// Given --node and --proxy, the config file is not even opened: a broken one does not
    /// matter. Without --proxy it is read: a file's proxy must never be skipped.
    @Test func theConfigFileIsReadOnlyWhenNeeded() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("adm-nodes-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("adm-push"), withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: home.appendingPathComponent("adm-push/config.json"))
        let environment = ["XDG_CONFIG_HOME": home.path]

        let given = try await run(
            "adm-push", ["nodes", "--node", devnet.nodeURLs[0], "--proxy", "none"], environment: environment)
        #expect(given.status == 0, "\(given.stderr)")
        let proxy = try await run("adm-push", ["nodes", "--node", devnet.nodeURLs[0]], environment: environment)
        #expect(proxy.status == 64 && proxy.stderr.contains("config.json"), "\(proxy.stderr)")
        let needed = try await run("adm-push", ["nodes"], environment: environment)
        #expect(needed.status == 64 && needed.stderr.contains("config.json"), "\(needed.stderr)")
    }

    /// A node whose clock is a year off says so in the table: usable for reads, not for stamping.
    @Test func aNodeWithAClockFarOffSaysSo() async throws {
        var configuration = DevnetConfiguration()
        configuration.faults = [.init(node: 0, fault: try Fault(parsing: "skew:31536000"))]
        let skewed = try Devnet(configuration)
        defer { skewed.stop() }
        let result = try await run("adm-push", ["nodes"] + skewed.nodeURLs.flatMap { ["--node", $0] })
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(
            lines.count == 4 && lines[1].contains("clockOff") && lines[1].contains("not used to stamp transactions"),
            "\(result.stdout)")
        #expect(lines[2].contains("usable") && lines[3].contains("usable"))
    }

    /// The CLOCK column is the node's clock against this machine's, with the sign of the reason
    /// beside it: a node 60 s ahead reads "+60.0 s" and "clock 60.0 s ahead of".
    @Test func theClockColumnAgreesWithTheReason() async throws {
        var configuration = DevnetConfiguration()
        configuration.faults = [.init(node: 0, fault: try Fault(parsing: "skew:60"))]
        let skewed = try Devnet(configuration)
        defer { skewed.stop() }
        let result = try await run("adm-push", ["nodes", "--node", skewed.nodeURLs[0]])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").dropFirst().first.map(String.init))
        let clock = try #require(line.firstMatch(of: /\s([+-])(\d+)\.\d s\s/), "\(line)")
        let reason = try #require(line.firstMatch(of: /clock (\d+)\.\d s (ahead of|behind)/), "\(line)")
        // The two are measured a request apart: 60.0 and 59.9 may stand side by side.
        #expect(clock.output.1 == "+" && reason.output.2 == "ahead of", "\(line)")
        #expect(["59", "60"].contains(clock.output.2) && ["59", "60"].contains(reason.output.1), "\(line)")
    }

    @Test func anEmptyNodeListIsAUsageError() async throws {
        let result = try await run("adm-push", ["nodes"], environment: ["ADM_NODES": ""])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: ADM_NODES names no node"))
    }
}
