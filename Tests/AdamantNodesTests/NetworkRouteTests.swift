import AdamantCore
import Testing

@testable import AdamantNodes

@Suite struct ProxyTests {
    @Test(arguments: [
        ("socks5h://127.0.0.1:9050", "socks5h://127.0.0.1:9050"),
        ("  SOCKS5H://LocalHost:9150/ ", "socks5h://localhost:9150"),
        ("socks5://[::1]:1080", "socks5://[::1]:1080"),
        ("http://proxy.example", "http://proxy.example:1080"),
    ])
    func aProxyURLIsNormalised(_ text: String, _ expected: String) throws {
        #expect(try Proxy(text).description == expected)
    }

    @Test func eachRefusalSaysWhatToWriteInstead() {
        #expect(throws: ProxyError.unsupportedScheme("socks4://127.0.0.1:9050")) {
            try Proxy("socks4://127.0.0.1:9050")
        }
        #expect(throws: ProxyError.unsupportedScheme("https://proxy:443")) { try Proxy("https://proxy:443") }
        #expect(throws: ProxyError.credentials("socks5h://me:secret@127.0.0.1:9050")) {
            try Proxy("socks5h://me:secret@127.0.0.1:9050")
        }
        for text in [
            "socks5h://me:secret@127.0.0.1:9050", "socks4://me:secret@127.0.0.1:9050", "me:secret@127.0.0.1:9050",
        ] {
            #expect(throws: ProxyError.credentials(text)) { try Proxy(text) }
            #expect(!"\(ProxyError.credentials(text))".contains("secret"), "a password is not repeated")
        }
        for text in [
            "127.0.0.1:9050", "socks5h://", "socks5h://host:0", "socks5h://host:65536", "socks5h://host:90a",
            "socks5h://ho st:1",
            "socks5h://host:9050/path", "socks5h://[::1", "socks5h://host:", "socks5h://host?x=1",
        ] {
            #expect(throws: ProxyError.malformed(text)) { try Proxy(text) }
        }
        #expect("\(ProxyError.malformed("x"))".contains("socks5h://127.0.0.1:9050"))
    }

    @Test func noneIsDirectInAnyCase() throws {
        #expect(try NetworkRoute(setting: "none") == .direct)
        #expect(try NetworkRoute(setting: " NONE ") == .direct)
        #expect(try NetworkRoute(setting: "socks5h://127.0.0.1:9050") == .proxy(try Proxy("socks5h://127.0.0.1:9050")))
        #expect(throws: ProxyError.self) { try NetworkRoute(setting: "") }
    }
}

@Suite struct EnvironmentProxyTests {
    let https = try! NodeURL("https://node.example.com")
    let http = try! NodeURL("http://10.1.2.3:36666")

    func hop(_ url: NodeURL, _ environment: [String: String]) -> ProxyHop {
        ResolvedRoute(.environment, environment: environment).hop(to: url)
    }

    @Test func theSchemesVariableThenAllProxy() throws {
        let proxy = try Proxy("socks5h://127.0.0.1:9050")
        #expect(hop(https, [:]) == .direct)
        #expect(hop(https, ["https_proxy": proxy.description]) == .environmentProxy(variable: "https_proxy", proxy))
        #expect(hop(https, ["HTTPS_PROXY": proxy.description]) == .environmentProxy(variable: "HTTPS_PROXY", proxy))
        #expect(hop(https, ["http_proxy": proxy.description]) == .direct, "http_proxy is for http URLs only")
        #expect(hop(http, ["http_proxy": proxy.description]) == .environmentProxy(variable: "http_proxy", proxy))
        // libcurl reads http_proxy in lowercase only: HTTP_PROXY can be set by a web request's Proxy header.
        #expect(hop(http, ["HTTP_PROXY": proxy.description]) == .direct)
        #expect(hop(http, ["ALL_PROXY": proxy.description]) == .environmentProxy(variable: "ALL_PROXY", proxy))
        #expect(
            hop(https, ["https_proxy": "", "all_proxy": proxy.description])
                == .environmentProxy(variable: "all_proxy", proxy), "empty is unset")
        // Without a scheme libcurl takes an HTTP proxy; what it cannot be read as is still a proxy.
        #expect(
            hop(https, ["https_proxy": "corp:3128"])
                == .environmentProxy(variable: "https_proxy", try Proxy("http://corp:3128")))
        #expect(hop(https, ["https_proxy": "gopher://x y"]) == .environmentProxy(variable: "https_proxy", nil))
    }

    /// libcurl 7.88's reading (noproxy.c), each case checked against its curl: entries split
    /// at commas, spaces and tabs; one trailing and one leading dot of an entry ignored; `*`
    /// only as the whole list; names without regard to case.
    @Test(arguments: [
        ("*", true), ("example.com", true), (".example.com", true), ("node.example.com", true),
        ("other.com, example.com", true),
        ("ample.com", false), ("node.example.com.evil", false), ("", false),
        ("example.com.", true), (".example.com.", true), ("EXAMPLE.COM", true), ("other.com\texample.com", true),
        ("other.com example.com", true),
        ("*,other.com", false), ("other.com,*", false), (" *", false), ("other.com;example.com", false),
        ("..example.com", false), ("example.com..", false),
    ])
    func noProxyTakesNamesByDomain(_ list: String, _ excluded: Bool) {
        let environment = ["https_proxy": "socks5h://127.0.0.1:9050", "no_proxy": list]
        #expect((hop(https, environment) == .direct) == excluded)
    }

    /// An address matches an entry's address, or its range when the entry has `/bits` (read
    /// as C's atoi reads: digits up to the first other character, 0 for none, which means the
    /// address alone); addresses are dotted quads without leading zeros.
    @Test(arguments: [
        ("10.0.0.0/8", true), ("10.1.2.3", true), ("10.1.2.0/24", true), ("10.1.3.0/24", false), ("10.1.2.3/33", false),
        ("0.0.0.0/0", false), ("10.1.2.3/0", true), ("10.1.2.0/24x", true), ("10.1.2.3/032", true), ("10.1.2.3/", true),
        ("010.1.2.3", false), ("10.1.2.3.", false), (".10.1.2.3", false), ("10.1.2.3/-1", false),
    ])
    func noProxyTakesAddressesByRange(_ list: String, _ excluded: Bool) {
        let environment = ["http_proxy": "socks5h://127.0.0.1:9050", "NO_PROXY": list]
        #expect((hop(http, environment) == .direct) == excluded)
    }

    /// The onion name that NO_PROXY's "onion." takes out goes direct, as libcurl sends it.
    @Test func noProxyTakesAnOnionNameOutWhateverItsDots() throws {
        let onion = try NodeURL("http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion")
        for list in ["onion.", ".onion.", "onion", ".onion"] {
            #expect(hop(onion, ["ALL_PROXY": "socks5h://127.0.0.1:9050", "NO_PROXY": list]) == .direct, "\(list)")
        }
    }

    /// A variable set to anything but empty is the one libcurl takes, even blank: it does not
    /// fall back to the next one.
    @Test func aBlankVariableIsSet() throws {
        let proxy = try Proxy("socks5h://127.0.0.1:9050")
        #expect(
            hop(https, ["https_proxy": " ", "ALL_PROXY": proxy.description])
                == .environmentProxy(variable: "https_proxy", nil))
        #expect(
            hop(https, ["no_proxy": " ", "NO_PROXY": "*", "ALL_PROXY": proxy.description])
                == .environmentProxy(variable: "ALL_PROXY", proxy))
    }
}

@Suite struct OnionTests {
    let onion = "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"

    func list(_ urls: [String], alternate: String? = nil) -> NodeList {
        NodeList(
            endpoints: urls.map { NodeEndpoint(url: try! NodeURL($0), alternate: alternate.map { try! NodeURL($0) }) },
            nethash: .majority, source: .arguments)
    }

    func refusal(_ route: NetworkRoute, _ nodes: NodeList, _ environment: [String: String] = [:]) -> String? {
        ResolvedRoute(route, environment: environment).refusal(of: nodes)
    }

    @Test func anOnionNodeNeedsAProxyThatResolvesNames() throws {
        let nodes = list(["https://node.example", onion])
        #expect(try NodeURL(onion).isOnion && !(try NodeURL("https://onion.example").isOnion))
        for route in [
            NetworkRoute.environment, .direct, .proxy(try Proxy("socks5://127.0.0.1:9050")),
            .proxy(try Proxy("http://127.0.0.1:8118")),
        ] {
            let refused = try #require(refusal(route, nodes), "\(route)")
            #expect(refused.contains(onion) && refused.contains("socks5h://"))
        }
        #expect(refusal(.proxy(try Proxy("socks5h://127.0.0.1:9050")), nodes) == nil)
        // The environment's socks5h proxy is as good, unless NO_PROXY takes the node out.
        #expect(refusal(.environment, nodes, ["ALL_PROXY": "socks5h://127.0.0.1:9050"]) == nil)
        #expect(refusal(.environment, nodes, ["ALL_PROXY": "socks5h://127.0.0.1:9050", "NO_PROXY": ".onion"]) != nil)
        // ...whose own setting it ignores.
        #expect(refusal(.direct, nodes, ["ALL_PROXY": "socks5h://127.0.0.1:9050"]) != nil)
        // Trailing dots name the same onion service, and are refused the same way.
        for dotted in [onion + ".", onion + "..", onion.uppercased() + ".:80"] {
            #expect(try NodeURL(dotted).isOnion, "\(dotted)")
            #expect(refusal(.direct, list([dotted])) != nil, "\(dotted)")
        }
        // An alternate URL is tried too, so it is held to the same rule.
        #expect(refusal(.direct, list(["https://node.example"], alternate: onion)) != nil)
    }

    /// A variable that names no proxy adm-push can use is refused where it applies, without
    /// repeating its value (it may hold a password), and ignored where it does not.
    @Test func anUnusableVariableIsRefusedWhereItApplies() throws {
        let nodes = list(["https://node.example"])
        let refused = try #require(refusal(.environment, nodes, ["https_proxy": "socks4://me:secret@127.0.0.1:1080"]))
        #expect(refused.hasPrefix("https_proxy names no proxy") && !refused.contains("secret"), "\(refused)")
        #expect(
            refusal(.environment, nodes, ["http_proxy": "socks4://127.0.0.1:1080"]) == nil,
            "http_proxy is not for https nodes")
        #expect(
            refusal(.environment, nodes, ["https_proxy": "socks4://127.0.0.1:1080", "NO_PROXY": "node.example"]) == nil)
        #expect(refusal(.direct, nodes, ["https_proxy": "socks4://127.0.0.1:1080"]) == nil)
    }

    @Test func whetherAnyRequestIsProxied() throws {
        let nodes = list(["https://node.example"])
        func proxied(_ route: NetworkRoute, _ environment: [String: String]) -> Bool {
            ResolvedRoute(route, environment: environment).isProxied(for: nodes)
        }
        #expect(!proxied(.environment, [:]))
        #expect(proxied(.environment, ["https_proxy": "http://corp:3128"]))
        #expect(!proxied(.direct, ["https_proxy": "http://corp:3128"]))
        #expect(proxied(.proxy(try Proxy("socks5h://127.0.0.1:9050")), [:]))
        #expect(
            ResolvedRoute(.environment, environment: ["https_proxy": "socks5://corp:1080"]).proxies(for: nodes) == [
                try Proxy("socks5://corp:1080")
            ])
    }
}

@Suite struct PoolRouteTests {
    let transport = ScriptedTransport()

    /// Status checks, reads and submissions alike carry the pool's route and circuit.
    @Test(.timeLimit(.minutes(1))) func everyRequestCarriesTheRouteAndTheCircuit() async throws {
        transport.node("http://a:1", paths: ["/api/blocks/getHeight": .json(#"{"success":true,"height":1000}"#)])
        let route = ResolvedRoute(.proxy(try Proxy("socks5h://127.0.0.1:9050")), environment: [:])
        // A clock that stands still: no timeout may beat the scripted answers in a full run.
        let pool = Fixtures.pool(transport, nodes: ["http://a:1"], clock: AnyClock(ManualClock())) { configuration in
            configuration.route = route
            configuration.circuit = "c1"
        }
        #expect(try await NodeClient(pool: pool).height() == 1000)
        let requests = transport.requests
        #expect(
            requests.count == 2
                && requests.allSatisfy {
                    $0.hop == .proxy(try! Proxy("socks5h://127.0.0.1:9050")) && $0.circuit == "c1"
                })
    }

    /// The environment's route is decided per node, once, and each node's requests carry
    /// its own: here NO_PROXY takes one out, and the other goes through http_proxy's proxy.
    @Test(.timeLimit(.minutes(1))) func eachNodesRequestsCarryItsOwnHop() async throws {
        transport.node("http://a:1")
        transport.node("http://b:1")
        let proxy = try Proxy("socks5h://127.0.0.1:9050")
        let route = ResolvedRoute(.environment, environment: ["http_proxy": proxy.description, "NO_PROXY": "a."])
        let pool = Fixtures.pool(transport, nodes: ["http://a:1", "http://b:1"], clock: AnyClock(ManualClock())) {
            $0.route = route
        }
        await pool.checkHealth()
        let hops = Dictionary(grouping: transport.requests) { ScriptedTransport.split($0.url).base }.mapValues {
            Set($0.map(\.hop))
        }
        #expect(
            hops == ["http://a:1": [.direct], "http://b:1": [.environmentProxy(variable: "http_proxy", proxy)]],
            "\(hops)")
    }

    @Test func throughAProxyTheHedgeMayFollowACircuitsSeconds() throws {
        let direct = NodePool.Configuration(route: .direct, proxied: false)
        let proxied = NodePool.Configuration(
            route: ResolvedRoute(.proxy(try Proxy("socks5h://127.0.0.1:9050")), environment: [:]), proxied: true)
        #expect(direct.statusTimeout == NodePool.Configuration().statusTimeout && !direct.isProxied)
        #expect(
            proxied.isProxied && proxied.statusTimeout == direct.statusTimeout,
            "the direct value, which the pool stretches as the route needs")
        #expect(proxied.hedgeDelayBounds.lowerBound == direct.hedgeDelayBounds.lowerBound, "the hedge keeps its floor")
        #expect(
            proxied.hedgeDelayBounds.upperBound > direct.hedgeDelayBounds.upperBound,
            "and may follow a slow circuit's latency")
    }
}

@Suite struct CircuitNameTests {
    @Test func oneAccountOneNameAndNoneToBeReadFromItsAddress() throws {
        let passphrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
        let first = KeyPair(passphrase: try Passphrase(validating: passphrase))
        let again = KeyPair(passphrase: try Passphrase(validating: passphrase))
        let other = KeyPair(
            passphrase: try Passphrase(
                validating: "process gospel angry height between flat always clock suit refuse shove verb"))
        #expect(first.circuitName == again.circuitName)
        #expect(first.circuitName != other.circuitName)
        #expect(first.circuitName.count == 32 && Hex.decode(first.circuitName) != nil)
        for known in [first.address.description, first.publicKey.hex] { #expect(!known.contains(first.circuitName)) }
    }
}
