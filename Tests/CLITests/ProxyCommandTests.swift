import AdamantCore
import AdamantDevnet
import Foundation
import Testing

@testable import adm_bench

/// Every command through a SOCKS5 proxy of the tests' own (`SocksPeer`), which shows what each
/// connection asked for: the destination as sent, the SOCKS username, the HTTP requests.
@Suite("proxy", .timeLimit(.minutes(3)))
struct ProxyCommandTests {
    /// The REST ports of the devnet's nodes.
    static func nodePorts(_ devnet: Devnet) -> Set<Int> { Set(devnet.nodeURLs.compactMap { URL(string: $0)?.port }) }

    static let onion = "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"
    static let onionRefusal =
        "Error: \(onion) is an onion service: it needs a socks5h:// proxy such as Tor's (--proxy socks5h://127.0.0.1:9050)\n"

    /// The proxy set by adm-push's own variable, or by libcurl's: the same treatment either way.
    @Test(arguments: ["ADM_PROXY", "ALL_PROXY"])
    func everyCommandGoesThroughTheProxyOnTheAccountsCircuit(_ variable: String) async throws {
        let network = try await FetchDevnet()
        let peer = try SocksPeer()
        defer { peer.stop() }
        let proxy = [variable: peer.url]
        let token = String(repeating: "5e", count: 32)
        var seen = 0
        func expectRequests(_ what: String) {
            #expect(peer.requests.count > seen, "\(what) went through the proxy")
            seen = peer.requests.count
        }
        for command in [
            ["register", "--token", token, "--provider", "apns"], ["status"], ["unregister", "--token", token],
            ["flush"], ["repair"],
        ] {
            let result = try await network.outbox.push(command, extra: proxy)
            #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            expectRequests(command[0])
        }
        let sent = try await network.send("through the proxy", from: network.friend, to: network.me)
        let fetched = try await network.fetch([try #require(sent.id).description, "--json"], environment: proxy)
        #expect(
            fetched.status == 0 && (try? network.object(fetched))?["text"] as? String == "through the proxy",
            "\(fetched.stderr)")
        expectRequests("fetch")
        let nodes = try await run(
            "adm-push", ["nodes"],
            environment: proxy.merging(["ADM_NODES": network.devnet.nodeURLs.joined(separator: ",")]) { $1 })
        let shown = "via \(peer.url)" + (variable == "ADM_PROXY" ? "  " : " (\(variable))")
        #expect(nodes.status == 0 && nodes.stdout.contains(shown), "\(nodes.stdout)")
        expectRequests("nodes")

        let requests = peer.requests
        let ports = Self.nodePorts(network.devnet)
        #expect(
            requests.allSatisfy { $0.host == "127.0.0.1" && ports.contains($0.port) },
            "\(requests.map { "\($0.host):\($0.port)" })")
        let lines = requests.flatMap(\.httpLines)
        for path in ["/api/node/status", "/api/chats/process", "/api/transactions/get"] {
            #expect(lines.contains { $0.contains(path) }, "\(path) went through the proxy")
        }
        // Each of the account's commands on its circuit; nodes, with no account, on none.
        let circuit = network.me.circuitName
        #expect(Set(requests.map(\.username)) == [circuit, nil], "\(Set(requests.map(\.username)))")
        #expect(
            requests.filter { $0.username == nil }.allSatisfy {
                $0.httpLines.allSatisfy { $0.contains("/api/node/status") }
            })
    }

    /// Two accounts of one watch never share a circuit: each account's listings, and its
    /// socket's subscription, travel only under its own SOCKS username.
    @Test(arguments: ["ADM_PROXY", "http_proxy"])
    func twoAccountsOfOneWatchTravelOnCircuitsOfTheirOwn(_ variable: String) async throws {
        let (network, other) = try await WatchAccountsTests.twoAccounts()
        let peer = try SocksPeer()
        defer { peer.stop() }
        let folder = network.outbox.home
        let watch = try await WatchProcess(
            network, ["--passphrase-file", folder + "/me.key", "--passphrase-file", folder + "/other.key"],
            name: "proxied",
            environment: [variable: peer.url])
        try await watch.until("both are watched") { watch.stderr.contains("Watching \(other.address)") }
        let toMe = try await network.submit("to me", from: network.friend, to: network.me)
        let toOther = try await network.submit("to the other", from: network.friend, to: other)
        try await watch.until("both are shown") {
            Set(watch.ids).isSuperset(of: [toMe.description, toOther.description])
        }
        try await watch.until("both sockets are live") { watch.stderr.components(separatedBy: "live on").count > 2 }
        #expect(try await watch.stop().status == 0, "\(watch.stderr)")

        let requests = peer.requests
        let accounts = [
            network.me.circuitName: network.me.address.description, other.circuitName: other.address.description,
        ]
        #expect(Set(requests.map(\.username)) == Set(accounts.keys), "\(Set(requests.map(\.username)))")
        for request in requests {
            let own = accounts[request.username ?? ""]
            for line in request.httpLines {
                for address in accounts.values where line.contains(address) {
                    #expect(address == own, "\(line) on \(own ?? "no") circuit")
                }
            }
            // What a socket subscribes to is in its POSTs: `42["address",["U…"]]`.
            for body in request.posts where body.contains("\"address\"") {
                let named = body.matches(of: /U\d+/).map { String($0.output) }
                #expect(!named.isEmpty && named.allSatisfy { $0 == own }, "\(body) on \(own ?? "no") circuit")
            }
        }
        for (circuit, address) in accounts {
            let subscribed = requests.filter { $0.username == circuit }.flatMap(\.posts).contains {
                $0.contains("\"address\"") && $0.contains(address)
            }
            #expect(subscribed, "\(address)'s socket subscribed through the proxy")
        }
        let lines = requests.flatMap(\.httpLines)
        #expect(
            lines.contains { $0.contains("isIn=\(network.me.address)") }
                && lines.contains { $0.contains("isIn=\(other.address)") })
    }

    /// An onion node's name reaches the proxy unresolved; without a proxy that can resolve it
    /// (none, a socks5:// one, or one NO_PROXY takes the node away from) the command refuses at
    /// once (64), before any connection.
    @Test func anOnionNameGoesToTheProxyUnresolvedAndIsRefusedWithoutOne() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let port = try #require(URL(string: devnet.nodeURLs[0])?.port)
        let host = String(Self.onion.dropFirst("http://".count))
        let peer = try SocksPeer(names: [host])
        defer { peer.stop() }
        let node = Self.onion + ":\(port)"

        for environment in [["ADM_PROXY": peer.url], ["ALL_PROXY": peer.url]] {
            let through = try await run("adm-push", ["nodes", "--json", "--node", node], environment: environment)
            #expect(
                through.status == 0 && through.stdout.contains(#""status":"usable""#),
                "\(through.stdout) \(through.stderr)")
        }
        #expect(
            peer.requests.map(\.host) == [host, host] && peer.requests.allSatisfy { $0.sentAsName && $0.port == port })

        let socks5 = peer.url.replacingOccurrences(of: "socks5h", with: "socks5")
        for (arguments, environment) in [
            ([], [:]), (["--proxy", "none"], ["ALL_PROXY": peer.url]), (["--proxy", socks5], [:]),
            ([], ["ALL_PROXY": socks5]),
            // NO_PROXY's "onion." takes every onion name out, as libcurl reads it.
            ([], ["ALL_PROXY": peer.url, "NO_PROXY": "onion."]),
        ] {
            for dots in ["", ".", ".."] {
                let refused = try await run(
                    "adm-push", ["nodes", "--node", Self.onion + dots] + arguments, environment: environment)
                #expect(
                    refused.status == 64 && refused.stderr == Self.onionRefusal,
                    "\(arguments) \(environment) \(dots): \(refused.stderr)")
            }
        }
        #expect(peer.requests.count == 2, "nothing more reached the proxy")
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

    /// Whatever NO_PROXY says, the route `nodes` shows is the one the requests take: the
    /// proxy gets them all, or none. Each case is one where libcurl's reading differs from a
    /// plausible one (`*` only alone; `/bits` read as C's atoi reads; `/0` the address alone).
    @Test(arguments: [
        ("127.0.0.1", false), ("*", false), ("*,example.com", true), ("127.0.0.0/8x", false), ("10.0.0.0/0", true),
        ("127.0.0.1/0", false),
        ("127.0.0.1.", true), ("example.com", true),
    ])
    func whatNodesShowsIsWhatHappens(_ noProxy: String, _ proxied: Bool) async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        let result = try await run(
            "adm-push", ["nodes", "--json"],
            environment: ["ALL_PROXY": peer.url, "NO_PROXY": noProxy, "ADM_NODES": devnet.nodeURLs[0]])
        #expect(result.status == 0, "\(result.stderr)")
        let shown = result.stdout.firstMatch(of: /"route":"([^"]*)"/).map { String($0.1) }
        #expect(shown == (proxied ? peer.url : "direct"), "\(result.stdout)")
        #expect(
            peer.requests.isEmpty == !proxied,
            "shown \(shown ?? "nothing"); \(peer.requests.count) went through the proxy")
    }

    /// A circuit that takes seconds to build (here 4 s for each connection, past the 2 s a
    /// direct connection gets) is waited for: a register with its default deadline gets
    /// through, the nodes are usable with the latency the proxy cost, and a fetch with its
    /// default deadline, whose timeouts follow that latency (kept in the home by `nodes`), too.
    /// No request gives up on a circuit: timeouts that fell to the direct ones would.
    @Test func aSlowCircuitIsWaitedForNotTakenForADeadNode() async throws {
        let network = try await FetchDevnet()
        let peer = try SocksPeer()
        defer { peer.stop() }
        peer.behave(.slowRelay(.seconds(4)))
        let proxy = ["ADM_PROXY": peer.url]
        let register = try await network.outbox.push(
            ["register", "--token", String(repeating: "4d", count: 32), "--provider", "apns"], extra: proxy)
        #expect(register.status == 0, "\(register.stderr)")

        let home = network.outbox.home + "/home"
        let environment = proxy.merging(["ADM_NODES": network.devnet.nodeURLs.joined(separator: ",")]) { $1 }
        let nodes = try await run(
            "adm-push", ["nodes", "--json", "--home", home], environment: environment, timeout: 90)
        #expect(nodes.status == 0 && nodes.stdout.contains(#""status":"usable""#), "\(nodes.stdout) \(nodes.stderr)")
        let latency = try #require(nodes.stdout.firstMatch(of: /"latencyMs":(\d+)/).flatMap { Int($0.1) })
        #expect(latency >= 4_000, "the circuit's wait is the node's latency: \(latency) ms")
        #expect(
            try String(contentsOfFile: home + "/node-health.json", encoding: .utf8).contains("latencyMicros"),
            "kept for the next command")

        let sent = try await network.send("slowly", from: network.friend, to: network.me)
        let fetched = try await network.fetch(
            [try #require(sent.id).description, "--json", "--no-names"], environment: proxy)
        #expect(
            fetched.status == 0 && (try? network.object(fetched))?["text"] as? String == "slowly", "\(fetched.stderr)")
        #expect(
            peer.requests.count >= 3 && peer.requests.allSatisfy { !$0.abandoned },
            "\(peer.requests.filter(\.abandoned).count) of \(peer.requests.count) gave up")
    }

    /// An HTTP proxy tunnels every request with CONNECT and is sent no SOCKS username;
    /// socks5:// works and warns, once, that the names are resolved here, whoever set it.
    @Test func anHTTPProxyTunnelsAndSocks5Warns() async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        let node = devnet.nodeURLs[0]
        let port = try #require(URL(string: node)?.port)
        let http = try await run("adm-push", ["nodes", "--proxy", "http://127.0.0.1:\(peer.port)", "--node", node])
        #expect(
            http.status == 0 && http.stdout.contains("via http://127.0.0.1:\(peer.port)") && http.stderr.isEmpty,
            "\(http.stdout) \(http.stderr)")
        #expect(
            peer.requests.map(\.httpLines) == [["CONNECT 127.0.0.1:\(port) HTTP/1.1"]]
                && peer.requests.allSatisfy { $0.username == nil })

        let socks5 = "socks5://127.0.0.1:\(peer.port)"
        let warning =
            "warning: \(socks5) resolves node names here, so the local resolver learns each one; socks5h:// leaves them to the proxy\n"
        for (arguments, environment) in [(["--proxy", socks5], [String: String]()), ([], ["ALL_PROXY": socks5])] {
            let result = try await run("adm-push", ["nodes", "--node", node] + arguments, environment: environment)
            #expect(result.status == 0 && result.stdout.contains("via \(socks5)"), "\(result.stdout) \(result.stderr)")
            #expect(result.stderr == warning, "\(result.stderr)")
        }
    }

    /// A proxy that is down is named once, as the cause, not once a node: 69 for a fetch, 75
    /// with the intent kept for a register.
    @Test(arguments: ["ADM_PROXY", "ALL_PROXY"])
    func aProxyThatIsDownIsNamedOnceAndLosesNoIntent(_ variable: String) async throws {
        let network = try await FetchDevnet()
        // A port held but not listening refuses, and no other test's proxy can be given it.
        let held = try ClosedPort()
        let url = "socks5h://127.0.0.1:\(held.port)"
        let proxy = [variable: url]
        let fetched = try await network.fetch(["12345", "--deadline", "5"], environment: proxy)
        #expect(fetched.status == 69, "\(fetched.stderr)")
        #expect(
            fetched.stderr == "Error: the proxy \(url) refused the connection: start it, or give another --proxy\n",
            "\(fetched.stderr)")
        #expect(fetched.stderr.components(separatedBy: url).count == 2, "named once: \(fetched.stderr)")

        let token = String(repeating: "6f", count: 32)
        let register = try await network.outbox.push(
            ["register", "--token", token, "--provider", "fcm", "--deadline", "3"], extra: proxy)
        #expect(
            register.status == 75 && register.stderr.contains("Error: the proxy \(url) refused the connection"),
            "\(register.stderr)")
        let queue = try await network.outbox.push(["queue", "--json"])
        #expect(queue.status == 0 && queue.stdout.contains(#""action":"add""#), "\(queue.stdout)")
    }

    /// A proxy refusing the node (the node's failure, which the proxy reports), one that takes
    /// the request and then says nothing (before its reply, or after a successful one), and
    /// one that answers garbage (a refusal of every method, an HTTP answer, noise, a reply cut
    /// short): each a clean 69 within the deadline,
    /// never a crash. Timed from the first connection, once the process has started, on a
    /// second run: under the full suite's load, starting and faulting in the failure path's
    /// pages took seconds on the first.
    @Test(
        .serialized,
        arguments: [
            SocksPeer.Behavior.refuse(5), .stall, .stallAfterConnect,
            .garbage("a refusal of every method", [0x05, 0xff, 0x00, 0x41, 0x42]),
            .garbage("an HTTP answer", Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)),
            .garbage("noise", (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 91) }),
            .garbageReply("a reply cut short", [0x05, 0x00, 0x00, 0x01, 0x7f, 0x00]),
        ])
    func aMisbehavingProxyEndsWithinTheDeadline(_ behavior: SocksPeer.Behavior) async throws {
        let devnet = try Devnet(DevnetConfiguration())
        defer { devnet.stop() }
        let peer = try SocksPeer()
        defer { peer.stop() }
        peer.behave(behavior)
        func fetch() async throws -> RunResult {
            try await run(
                "adm-fetch",
                [
                    "12345", "--deadline", "4", "--no-names", "--home",
                    FileManager.default.temporaryDirectory.path + "/adm-proxy-\(UUID())",
                ],
                environment: [
                    "ADM_NODES": devnet.nodeURLs[0], "ADM_PROXY": peer.url, "ADM_PASSPHRASE": BIP39.randomMnemonic(),
                ], timeout: 60)
        }
        _ = try await fetch()
        let started = ContinuousClock.now
        let result = try await fetch()
        let elapsed = ContinuousClock.now - (peer.firstConnection(after: started) ?? started)
        #expect(result.status == 69 && result.signal == nil, "\(result.status) \(result.stderr)")
        #expect(elapsed < .seconds(9), "the 4 s deadline held: \(elapsed) from the first connection")
        if case .refuse = behavior {
            // The proxy did its part and said the node refused: the node's failure.
            #expect(result.stderr.contains("\(peer.url) could not reach the node"), "\(result.stderr)")
        } else {
            #expect(
                result.stderr.contains("Error: the proxy \(peer.url) "),
                "the proxy is named as the cause: \(result.stderr)")
        }
        #expect(!peer.requests.isEmpty || behavior.isGreetingGarbage, "the proxy was asked")
    }

    /// `queue` makes no request: it neither needs the route nor checks it.
    @Test func aLocalCommandNeitherNeedsNorChecksTheRoute() async throws {
        let network = try OutboxDevnet()
        for extra in [
            ["ADM_PROXY": "gopher://127.0.0.1:9"], ["ADM_NODES": Self.onion], ["ALL_PROXY": "socks4://127.0.0.1:9"],
        ] {
            let queue = try await network.push(["queue"], extra: extra)
            #expect(
                queue.status == 0 && queue.stdout == "the outbox is empty for this account\n",
                "\(extra): \(queue.stdout) \(queue.stderr)")
        }
    }
}

extension SocksPeer.Behavior: CustomTestStringConvertible {
    var testDescription: String {
        switch self {
        case .relay: "relay"
        case .slowRelay(let wait): "slow relay, \(wait)"
        case .refuse(let code): "refuse with \(code)"
        case .stall: "stall before the reply"
        case .stallAfterConnect: "stall after the connect"
        case .garbage(let what, _): "\(what) for a greeting"
        case .garbageReply(let what, _): "\(what) for a reply"
        }
    }

    /// The connection ends before the client says where to: no request is recorded.
    var isGreetingGarbage: Bool { if case .garbage = self { true } else { false } }
}

/// The tools the traced tests need. Where one is missing they are skipped, except in CI (`CI`
/// set, as `.ci/run` sets it), where they run and fail: a proof that cannot run is no proof.
enum TraceTools {
    static let strace = "/usr/bin/strace"

    static var inCI: Bool { !["", "0", "false"].contains(ProcessInfo.processInfo.environment["CI"] ?? "") }

    static func runs(needing paths: String...) -> Bool {
        inCI || paths.allSatisfy(FileManager.default.isExecutableFile)
    }

    static func require(_ paths: String...) throws {
        for path in paths {
            try #require(
                FileManager.default.isExecutableFile(atPath: path),
                "\(path) is missing: scripts/install-deps.sh installs it")
        }
    }
}

/// Under strace: through Debian's SOCKS5 server, every command's only connections are to
/// the proxy; through the tests' own, given node names, nothing resolves one here (no DNS
/// query, no /etc/hosts) and the proxy gets the names as sent.
@Suite("proxy, under strace", .timeLimit(.minutes(3)))
struct ProxyTraceTests {
    static let calls = "trace=connect,sendto,sendmsg,openat"

    /// The calls `program` made, run under strace with `environment`.
    static func traced(_ program: String, _ arguments: [String], environment: [String: String], trace: String)
        async throws -> (RunResult, [Substring])
    {
        let result = try await run(
            TraceTools.strace, ["-f", "-qq", "-e", calls, "-o", trace, Binaries.url(program).path] + arguments,
            environment: environment, timeout: 90)
        return (result, try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n"))
    }

    /// `adm-fetch watch` with `options` under strace (`calls`, into `folder`/`name`.trace) while
    /// `body` runs, then stopped by SIGTERM (to the watch, which strace only traces); what it
    /// did, and the calls it made.
    static func tracedWatch(
        _ arguments: [String], environment: [String: String], folder: String, name: String, calls: String = calls,
        options: [String] = ["--json", "--interval", "0.5"], while body: (BackgroundProcess) async throws -> Void
    ) async throws -> (RunResult, [Substring]) {
        let trace = folder + "/\(name).trace"
        let strace = try BackgroundProcess(
            TraceTools.strace,
            ["-f", "-qq", "-e", calls, "-o", trace, Binaries.url("adm-fetch").path, "watch"] + options + arguments,
            environment: environment, folder: folder, name: name, timeout: 120)
        // The watch is strace's child; strace would leave it running if it were killed.
        func watch() -> pid_t? {
            guard let pid = strace.processIdentifier,
                let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
            else { return nil }
            return children.split(separator: " ").first.flatMap { pid_t($0) }
        }
        var child: pid_t?
        defer { if let child { kill(child, SIGKILL) } }
        try await strace.until("it is watching") {
            strace.stderr.contains("Watching ")
        }
        child = watch()
        try await body(strace)
        let pid = try #require(child, "the watch's process id")
        kill(pid, SIGTERM)
        let result = try await strace.ended()
        child = nil
        return (result, try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n"))
    }

    /// Every TCP connection is to 127.0.0.1:`port`; no IPv6, nothing to port 53.
    static func expectOnlyConnections(to port: Int, in calls: [Substring], _ what: String) {
        let connects = calls.filter { $0.contains("connect(") && $0.contains("AF_INET") }
        #expect(!connects.isEmpty, "strace saw \(what)'s connections")
        for call in connects {
            let to = call.firstMatch(of: /htons\((\d+)\)/).flatMap { Int($0.1) }
            #expect(call.contains("inet_addr(\"127.0.0.1\")") && to == port, "\(what) connected elsewhere: \(call)")
        }
        #expect(!calls.contains { $0.contains("AF_INET6") || $0.contains("htons(53)") }, "\(what): no DNS, no IPv6")
    }

    /// Nothing that looks a name up: the resolver's files, the hosts file, nscd's socket.
    static func expectNoLookups(in calls: [Substring], _ what: String) {
        let lookups = calls.filter {
            $0.contains("/etc/hosts") || $0.contains("/etc/resolv.conf") || $0.contains("/etc/nsswitch.conf")
                || $0.contains("nscd")
        }
        #expect(lookups.isEmpty, "\(what) looked a name up here: \(lookups)")
    }

    /// Every command that reaches a node (register, status, unregister, flush, repair, fetch, watch
    /// and its socket, nodes) through Debian's microsocks, each under strace.
    @Test(.enabled(if: TraceTools.runs(needing: TraceTools.strace, LoopbackProxy.microsocks)))
    func throughARealSOCKSServerEveryCommandsOnlyConnectionsAreToIt() async throws {
        try TraceTools.require(TraceTools.strace, LoopbackProxy.microsocks)
        let network = try await FetchDevnet()
        let folder = network.outbox.home
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let socks = try LoopbackProxy()
        let common = ["--home", folder + "/home", "--proxy", socks.url]
        let service = [
            "--service-address", network.devnet.ans.address.description, "--service-public-key",
            network.devnet.ans.publicKey.hex,
        ]
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase,
            "PATH": "/usr/bin:/bin",
        ]
        let token = String(repeating: "7a", count: 32)
        let sent = try await network.send("traced", from: network.friend, to: network.me)
        let runs: [(String, [String])] = [
            ("adm-push", ["nodes"]),
            ("adm-push", ["register", "--token", token, "--provider", "apns"] + service),
            ("adm-push", ["status"] + service),
            ("adm-push", ["unregister", "--token", token] + service),
            ("adm-push", ["flush"] + service),
            ("adm-push", ["repair"] + service),
            ("adm-fetch", [try #require(sent.id).description, "--json"]),
        ]
        for (index, (program, arguments)) in runs.enumerated() {
            let (result, calls) = try await Self.traced(
                program, arguments + common, environment: environment, trace: folder + "/trace-\(index)")
            #expect(
                result.status == 0, "\(program) \(arguments[0]) via \(socks.url): \(result.stderr) \(result.stdout)")
            Self.expectOnlyConnections(to: socks.port, in: calls, "\(program) \(arguments[0])")
        }
        let (watched, calls) = try await Self.tracedWatch(
            common, environment: environment, folder: folder, name: "watch"
        ) { watch in
            try await watch.until("its socket is live") { watch.stderr.contains("live on") }
            let id = try #require(try await network.send("watched", from: network.friend, to: network.me).id)
                .description
            try await watch.until("it is shown") { watch.stdout.contains(id) }
        }
        #expect(watched.status == 0, "watch via \(socks.url): \(watched.stderr)")
        Self.expectOnlyConnections(to: socks.port, in: calls, "watch")
    }

    /// Refused for want of a socks5h:// proxy, an onion node is never tried: not one socket,
    /// not one lookup, whatever dots end its name or however the proxy that cannot take it is set.
    @Test(.enabled(if: TraceTools.runs(needing: TraceTools.strace)), arguments: ["", "."])
    func anOnionNodeWithoutAProxyOpensNoConnection(_ dots: String) async throws {
        try TraceTools.require(TraceTools.strace)
        let folder = FileManager.default.temporaryDirectory.path + "/adm-trace-\(UUID())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(String, [String], [String: String])] = [
            ("adm-push", [], ["https_proxy": "socks5h://127.0.0.1:9"]),  // an http node: https_proxy is not its
            ("adm-fetch", [], [:]),
            ("adm-push", ["--proxy", "socks5://127.0.0.1:9"], [:]),
            ("adm-push", [], ["ALL_PROXY": "socks5h://127.0.0.1:9", "NO_PROXY": "onion."]),
        ]
        for (index, (program, arguments, environment)) in cases.enumerated() {
            let (result, calls) = try await Self.traced(
                program, ["nodes", "--node", ProxyCommandTests.onion + dots] + arguments, environment: environment,
                trace: folder + "/trace-\(index)")
            #expect(
                result.status == 64 && result.stderr == ProxyCommandTests.onionRefusal,
                "\(program) \(arguments) \(environment): \(result.stderr)")
            let sockets = calls.filter { $0.contains("connect(") || $0.contains("sendto(") || $0.contains("sendmsg(") }
            #expect(sockets.isEmpty, "\(program) tried: \(sockets)")
            Self.expectNoLookups(in: calls, program)
        }
    }

    /// Through socks5h://, the node names go to the proxy as they are: nodes, register, fetch
    /// and watch (its socket too) never resolve one here.
    @Test(.enabled(if: TraceTools.runs(needing: TraceTools.strace)))
    func withSocks5hNoNodeNameIsResolvedHere() async throws {
        try TraceTools.require(TraceTools.strace)
        let network = try await FetchDevnet()
        let folder = network.outbox.home
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ports = network.devnet.nodeURLs.compactMap { URL(string: $0)?.port }
        let names = ["node-a.adamant.test", "node-b.adamant.test"]
        let peer = try SocksPeer(names: Set(names))
        defer { peer.stop() }
        let nodes = zip(names, ports).map { "http://\($0):\($1)" }.joined(separator: ",")
        let common = ["--home", folder + "/home", "--proxy", peer.url]
        let service = [
            "--service-address", network.devnet.ans.address.description, "--service-public-key",
            network.devnet.ans.publicKey.hex,
        ]
        let environment = ["ADM_NODES": nodes, "ADM_PASSPHRASE": network.outbox.passphrase, "PATH": "/usr/bin:/bin"]
        let sent = try await network.send("by name", from: network.friend, to: network.me)
        let runs: [(String, [String])] = [
            ("adm-push", ["nodes"]),
            ("adm-push", ["register", "--token", String(repeating: "8b", count: 32), "--provider", "apns"] + service),
            ("adm-fetch", [try #require(sent.id).description, "--json"]),
        ]
        for (index, (program, arguments)) in runs.enumerated() {
            let (result, calls) = try await Self.traced(
                program, arguments + common, environment: environment, trace: folder + "/trace-\(index)")
            #expect(result.status == 0, "\(program) \(arguments[0]): \(result.stdout) \(result.stderr)")
            Self.expectOnlyConnections(to: peer.port, in: calls, "\(program) \(arguments[0])")
            Self.expectNoLookups(in: calls, "\(program) \(arguments[0])")
        }
        let (watched, calls) = try await Self.tracedWatch(
            common, environment: environment, folder: folder, name: "watch"
        ) { watch in
            try await watch.until("its socket is live") { watch.stderr.contains("live on") }
        }
        #expect(watched.status == 0, "watch: \(watched.stderr)")
        Self.expectOnlyConnections(to: peer.port, in: calls, "watch")
        Self.expectNoLookups(in: calls, "watch")
        let requests = peer.requests
        #expect(
            requests.allSatisfy { $0.sentAsName && names.contains($0.host) },
            "\(requests.map { "\($0.host):\($0.port)" })")
        #expect(requests.flatMap(\.httpLines).contains { $0.contains("/socket.io/") }, "the socket went by name too")
    }
}
