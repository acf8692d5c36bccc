import AdamantCore
import AdamantDevnet
import Foundation
import Testing
@testable import adm_bench

/// Every command through a SOCKS5 proxy of the tests' own (`SocksPeer`), which shows what each
/// connection asked for: the destination as sent, the SOCKS username, the HTTP request lines.
@Suite("proxy", .timeLimit(.minutes(3)))
struct ProxyCommandTests {
    /// The REST ports of the devnet's nodes.
    static func nodePorts(_ devnet: Devnet) -> Set<Int> { Set(devnet.nodeURLs.compactMap { URL(string: $0)?.port }) }

    @Test func everyCommandGoesThroughTheProxyOnTheAccountsCircuit() async throws {
        let network = try await FetchDevnet()
        let peer = try SocksPeer()
        defer { peer.stop() }
        let proxy = ["ADM_PROXY": peer.url]
        let token = String(repeating: "5e", count: 32)
        for command in [["register", "--token", token, "--provider", "apns"], ["status"], ["unregister", "--token", token], ["flush"], ["repair"]] {
            let result = try await network.outbox.push(command, extra: proxy)
            #expect(result.status == 0, "\(command[0]): \(result.stderr)")
        }
        let sent = try await network.send("through the proxy", from: network.friend, to: network.me)
        let fetched = try await network.fetch([try #require(sent.id).description, "--json"], environment: proxy)
        #expect(fetched.status == 0 && (try? network.object(fetched))?["text"] as? String == "through the proxy", "\(fetched.stderr)")
        let nodes = try await run("adm-push", ["nodes"], environment: proxy.merging(["ADM_NODES": network.devnet.nodeURLs.joined(separator: ",")]) { $1 })
        #expect(nodes.status == 0 && nodes.stdout.contains("via \(peer.url)"), "\(nodes.stdout)")

        let requests = peer.requests
        let ports = Self.nodePorts(network.devnet)
        #expect(requests.allSatisfy { $0.host == "127.0.0.1" && ports.contains($0.port) }, "\(requests)")
        let lines = requests.flatMap(\.httpLines)
        for path in ["/api/node/status", "/api/chats/process", "/api/transactions/get"] {
            #expect(lines.contains { $0.contains(path) }, "\(path) went through the proxy")
        }
        // Each of the account's commands on its circuit; nodes, with no account, on none.
        let circuit = network.me.circuitName
        #expect(Set(requests.map(\.username)) == [circuit, nil], "\(Set(requests.map(\.username)))")
        #expect(requests.filter { $0.username == nil }.allSatisfy { $0.httpLines.allSatisfy { $0.contains("/api/node/status") } })
    }

    /// Two accounts of one watch never share a circuit: each account's listings, and its
    /// socket's subscription, travel only under its own SOCKS username.
    @Test func twoAccountsOfOneWatchTravelOnCircuitsOfTheirOwn() async throws {
        let (network, other) = try await WatchAccountsTests.twoAccounts()
        let peer = try SocksPeer()
        defer { peer.stop() }
        let folder = network.outbox.home
        let watch = try await WatchProcess(
            network, ["--passphrase-file", folder + "/me.key", "--passphrase-file", folder + "/other.key"], name: "proxied",
            environment: ["ADM_PROXY": peer.url])
        try await watch.until("both are watched") { watch.stderr.contains("Watching \(other.address)") }
        let toMe = try await network.submit("to me", from: network.friend, to: network.me)
        let toOther = try await network.submit("to the other", from: network.friend, to: other)
        try await watch.until("both are shown") { Set(watch.ids).isSuperset(of: [toMe.description, toOther.description]) }
        try await watch.until("both sockets are live") { watch.stderr.components(separatedBy: "live on").count > 2 }
        #expect(try await watch.stop().status == 0, "\(watch.stderr)")

        let requests = peer.requests
        let mine = network.me.circuitName, theirs = other.circuitName
        #expect(Set(requests.map(\.username)) == [mine, theirs], "\(Set(requests.map(\.username)))")
        for request in requests {
            for line in request.httpLines {
                if line.contains(network.me.address.description) { #expect(request.username == mine, "\(line)") }
                if line.contains(other.address.description) { #expect(request.username == theirs, "\(line)") }
            }
        }
        let lines = requests.flatMap(\.httpLines)
        #expect(lines.contains { $0.contains("isIn=\(network.me.address)") } && lines.contains { $0.contains("isIn=\(other.address)") })
        #expect(lines.contains { $0.contains("/socket.io/") }, "the sockets went through the proxy too")
    }

    /// An onion node's name reaches the proxy unresolved; without a proxy that can resolve it
    /// the command refuses at once (64), before any connection.
    @Test func anOnionNameGoesToTheProxyUnresolvedAndIsRefusedWithoutOne() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let onion = "2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"
        let port = try #require(URL(string: devnet.nodeURLs[0])?.port)
        let peer = try SocksPeer(hosts: [onion: port])
        defer { peer.stop() }
        let node = ["--node", "http://\(onion)"]

        let through = try await run("adm-push", ["nodes", "--json", "--proxy", peer.url] + node)
        #expect(through.status == 0 && through.stdout.contains(#""status":"usable""#), "\(through.stdout) \(through.stderr)")
        #expect(peer.requests.map(\.host) == [onion] && peer.requests.allSatisfy(\.sentAsName) && peer.requests[0].port == 80)

        for proxy in [[], ["--proxy", "none"], ["--proxy", peer.url.replacingOccurrences(of: "socks5h", with: "socks5")]] {
            let refused = try await run("adm-push", ["nodes"] + proxy + node)
            #expect(refused.status == 64 && refused.stderr.hasPrefix("Error: http://\(onion) is an onion service: it needs a socks5h:// proxy"), "\(refused.stderr)")
        }
        #expect(peer.requests.count == 1, "nothing more reached the proxy")
    }

    /// `--proxy none` turns libcurl's variables off; without it they route, and `nodes` says so.
    @Test func noneTurnsTheEnvironmentsProxyOff() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        let environment = ["http_proxy": peer.url, "ADM_NODES": devnet.nodeURLs[0]]
        let routed = try await run("adm-push", ["nodes"], environment: environment)
        #expect(routed.status == 0 && routed.stdout.contains("via \(peer.url) (http_proxy)"), "\(routed.stdout)")
        let seen = peer.requests.count
        #expect(seen > 0)
        let direct = try await run("adm-push", ["nodes", "--proxy", "none"], environment: environment)
        #expect(direct.status == 0 && direct.stdout.contains("  direct  "), "\(direct.stdout)")
        #expect(peer.requests.count == seen, "the variable was not followed")
    }

    /// A circuit that takes seconds to build (here 4 s for each connection, past the 2 s a
    /// direct connection gets) is waited for: the nodes are usable, and their latency is what
    /// the proxy cost.
    @Test func aSlowCircuitIsWaitedForNotTakenForADeadNode() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        peer.behave(.slowRelay(.seconds(4)))
        let result = try await run("adm-push", ["nodes", "--json", "--proxy", peer.url, "--node", devnet.nodeURLs[0]], timeout: 60)
        #expect(result.status == 0 && result.stdout.contains(#""status":"usable""#), "\(result.stdout) \(result.stderr)")
        let latency = try #require(result.stdout.firstMatch(of: /"latencyMs":(\d+)/).flatMap { Int($0.1) })
        #expect(latency >= 4_000, "the circuit's wait is the node's latency: \(latency) ms")
    }

    /// An HTTP proxy tunnels every request with CONNECT and is sent no SOCKS username;
    /// socks5:// works and warns, once, that the names are resolved here.
    @Test func anHTTPProxyTunnelsAndSocks5Warns() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        let node = devnet.nodeURLs[0], port = try #require(URL(string: node)?.port)
        let http = try await run("adm-push", ["nodes", "--proxy", "http://127.0.0.1:\(peer.port)", "--node", node])
        #expect(http.status == 0 && http.stdout.contains("via http://127.0.0.1:\(peer.port)") && http.stderr.isEmpty, "\(http.stdout) \(http.stderr)")
        #expect(peer.requests.map(\.httpLines) == [["CONNECT 127.0.0.1:\(port) HTTP/1.1"]] && peer.requests.allSatisfy { $0.username == nil })

        let socks5 = try await run("adm-push", ["nodes", "--proxy", "socks5://127.0.0.1:\(peer.port)", "--node", node])
        #expect(socks5.status == 0, "\(socks5.stderr)")
        #expect(socks5.stderr == "warning: socks5://127.0.0.1:\(peer.port) resolves node names here, so the local resolver learns each one; socks5h:// leaves them to the proxy\n")
    }

    /// A proxy that is down is named once, not once a node: 69 for a fetch, 75 with the intent
    /// kept for a register.
    @Test func aProxyThatIsDownIsNamedOnceAndLosesNoIntent() async throws {
        let network = try await FetchDevnet()
        // A port held but not listening refuses, and no other test's proxy can be given it.
        let held = try ClosedPort()
        let url = "socks5h://127.0.0.1:\(held.port)"
        let proxy = ["ADM_PROXY": url]
        let fetched = try await network.fetch(["12345", "--deadline", "5"], environment: proxy)
        #expect(fetched.status == 69, "\(fetched.stderr)")
        #expect(fetched.stderr.contains("every one offline: proxy failure: \(url)"), "\(fetched.stderr)")
        #expect(fetched.stderr.components(separatedBy: url).count == 2, "named once: \(fetched.stderr)")

        let token = String(repeating: "6f", count: 32)
        let register = try await network.outbox.push(["register", "--token", token, "--provider", "fcm", "--deadline", "3"], extra: proxy)
        #expect(register.status == 75 && register.stderr.contains(url), "\(register.stderr)")
        let queue = try await network.outbox.push(["queue", "--json"])
        #expect(queue.status == 0 && queue.stdout.contains(#""action":"add""#), "\(queue.stdout)")
    }

    /// A proxy refusing the node, one that takes the request and then says nothing, and one
    /// that answers garbage: each a clean 69 within the deadline, never a crash.
    @Test(arguments: [SocksPeer.Behavior.refuse(5), .stall, .garbage([0x05, 0xff, 0x00, 0x41, 0x42])])
    func aMisbehavingProxyEndsWithinTheDeadline(_ behavior: SocksPeer.Behavior) async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        peer.behave(behavior)
        let started = ContinuousClock.now
        let result = try await run(
            "adm-fetch", ["12345", "--deadline", "4", "--no-names", "--home", FileManager.default.temporaryDirectory.path + "/adm-proxy-\(UUID())"],
            environment: ["ADM_NODES": devnet.nodeURLs[0], "ADM_PROXY": peer.url, "ADM_PASSPHRASE": BIP39.randomMnemonic()], timeout: 60)
        #expect(result.status == 69 && result.signal == nil, "\(behavior): \(result.status) \(result.stderr)")
        #expect(ContinuousClock.now - started < .seconds(30), "the deadline held")
        #expect(result.stderr.contains("proxy failure") || result.stderr.contains("deadline"), "\(result.stderr)")
    }
}

/// Under strace: through Debian's SOCKS5 server, the commands' only connections are to the
/// proxy; through the tests' own, given node names, nothing resolves one here (no DNS query,
/// no /etc/hosts) and the proxy gets the names as sent.
@Suite(
    "proxy, under strace", .timeLimit(.minutes(3)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && LoopbackProxy.isInstalled))
struct ProxyTraceTests {
    /// The calls `program` made, run under strace with `environment`.
    static func traced(_ program: String, _ arguments: [String], environment: [String: String], trace: String) async throws -> (RunResult, [Substring]) {
        let result = try await run(
            "/usr/bin/strace", ["-f", "-qq", "-e", "trace=connect,sendto,sendmsg,openat", "-o", trace, Binaries.url(program).path] + arguments,
            environment: environment, timeout: 90)
        return (result, try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n"))
    }

    /// Every TCP connection is to 127.0.0.1:`port`; no IPv6, nothing to port 53.
    static func expectOnlyConnections(to port: Int, in calls: [Substring], _ what: String) {
        let connects = calls.filter { $0.contains("connect(") && $0.contains("AF_INET") }
        #expect(!connects.isEmpty, "strace saw the connections")
        for call in connects {
            let to = call.firstMatch(of: /htons\((\d+)\)/).flatMap { Int($0.1) }
            #expect(call.contains("inet_addr(\"127.0.0.1\")") && to == port, "\(what) connected elsewhere: \(call)")
        }
        #expect(!calls.contains { $0.contains("AF_INET6") || $0.contains("htons(53)") }, "\(what): no DNS, no IPv6")
    }

    @Test func throughARealSOCKSServerTheOnlyConnectionsAreToIt() async throws {
        let network = try await FetchDevnet()
        let folder = network.outbox.home
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let socks = try LoopbackProxy()
        let sent = try await network.send("traced", from: network.friend, to: network.me)
        let common = ["--home", folder + "/home", "--proxy", socks.url]
        let service = ["--service-address", network.devnet.ans.address.description, "--service-public-key", network.devnet.ans.publicKey.hex]
        let runs: [(String, [String])] = [
            ("adm-push", ["nodes"]),
            ("adm-push", ["register", "--token", String(repeating: "7a", count: 32), "--provider", "apns"] + service),
            ("adm-fetch", [try #require(sent.id).description, "--json"]),
        ]
        for (index, (program, arguments)) in runs.enumerated() {
            let (result, calls) = try await Self.traced(
                program, arguments + common, environment: ["ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase],
                trace: folder + "/trace-\(index)")
            #expect(result.status == 0, "\(program) \(arguments[0]) via \(socks.url): \(result.stderr) \(result.stdout)")
            Self.expectOnlyConnections(to: socks.port, in: calls, "\(program) \(arguments[0])")
        }
    }

    /// Refused for want of a socks5h:// proxy, an onion node is never tried: not one socket.
    @Test func anOnionNodeWithoutAProxyOpensNoConnection() async throws {
        let folder = FileManager.default.temporaryDirectory.path + "/adm-trace-\(UUID())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let onion = "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"
        for (index, program) in ["adm-push", "adm-fetch"].enumerated() {
            let (result, calls) = try await Self.traced(
                program, ["nodes", "--node", onion], environment: ["https_proxy": "socks5h://127.0.0.1:9"], trace: folder + "/trace-\(index)")
            #expect(result.status == 64, "\(program): \(result.stderr)")
            let sockets = calls.filter { $0.contains("connect(") || $0.contains("sendto(") || $0.contains("/etc/hosts") }
            #expect(sockets.isEmpty, "\(program) tried: \(sockets)")
        }
    }

    @Test func withSocks5hNoNodeNameIsResolvedHere() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let name = "node-a.adamant.test"
        let peer = try SocksPeer(hosts: [name: try #require(URL(string: devnet.nodeURLs[0])?.port)])
        defer { peer.stop() }
        let folder = FileManager.default.temporaryDirectory.path + "/adm-trace-\(UUID())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (result, calls) = try await Self.traced(
            "adm-push", ["nodes", "--node", "http://\(name):36666", "--proxy", peer.url], environment: [:], trace: folder + "/trace")
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        Self.expectOnlyConnections(to: peer.port, in: calls, "nodes")
        let lookups = calls.filter { $0.contains("/etc/hosts") || $0.contains("/etc/resolv.conf") || $0.contains("/etc/nsswitch.conf") || $0.contains("nscd") }
        #expect(lookups.isEmpty, "a name was looked up here: \(lookups)")
        #expect(peer.requests.map { [$0.host, "\($0.port)"] } == [[name, "36666"]] && peer.requests.allSatisfy(\.sentAsName))
    }
}
