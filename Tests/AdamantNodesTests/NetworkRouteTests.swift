import AdamantCore
@testable import AdamantNodes
import Testing

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
        #expect(throws: ProxyError.unsupportedScheme("socks4://127.0.0.1:9050")) { try Proxy("socks4://127.0.0.1:9050") }
        #expect(throws: ProxyError.unsupportedScheme("https://proxy:443")) { try Proxy("https://proxy:443") }
        #expect(throws: ProxyError.credentials("socks5h://me:secret@127.0.0.1:9050")) { try Proxy("socks5h://me:secret@127.0.0.1:9050") }
        for text in ["127.0.0.1:9050", "socks5h://", "socks5h://host:0", "socks5h://host:65536", "socks5h://host:90a", "socks5h://ho st:1",
                     "socks5h://host:9050/path", "socks5h://[::1", "socks5h://host:", "socks5h://host?x=1"] {
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

    func hop(_ url: NodeURL, _ environment: [String: String]) -> ProxyHop { NetworkRoute.environment.hop(to: url, environment: environment) }

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
        #expect(hop(https, ["https_proxy": "", "all_proxy": proxy.description]) == .environmentProxy(variable: "all_proxy", proxy), "empty is unset")
        // Without a scheme libcurl takes an HTTP proxy; what it cannot be read as is still a proxy.
        #expect(hop(https, ["https_proxy": "corp:3128"]) == .environmentProxy(variable: "https_proxy", try Proxy("http://corp:3128")))
        #expect(hop(https, ["https_proxy": "gopher://x y"]) == .environmentProxy(variable: "https_proxy", nil))
    }

    @Test(arguments: [
        ("*", true), ("example.com", true), (".example.com", true), ("node.example.com", true), ("other.com, example.com", true),
        ("ample.com", false), ("node.example.com.evil", false), ("", false),
    ])
    func noProxyTakesNamesByDomain(_ list: String, _ excluded: Bool) {
        let environment = ["https_proxy": "socks5h://127.0.0.1:9050", "no_proxy": list]
        #expect((hop(https, environment) == .direct) == excluded)
    }

    @Test(arguments: [("10.0.0.0/8", true), ("10.1.2.3", true), ("10.1.2.0/24", true), ("10.1.3.0/24", false), ("0.0.0.0/0", true), ("10.1.2.3/33", false)])
    func noProxyTakesAddressesByRange(_ list: String, _ excluded: Bool) {
        let environment = ["http_proxy": "socks5h://127.0.0.1:9050", "NO_PROXY": list]
        #expect((hop(http, environment) == .direct) == excluded)
    }
}

@Suite struct OnionTests {
    let onion = "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion"

    func list(_ urls: [String], alternate: String? = nil) -> NodeList {
        NodeList(
            endpoints: urls.map { NodeEndpoint(url: try! NodeURL($0), alternate: alternate.map { try! NodeURL($0) }) },
            nethash: .majority, source: .arguments)
    }

    @Test func anOnionNodeNeedsAProxyThatResolvesNames() throws {
        let nodes = list(["https://node.example", onion])
        #expect(try NodeURL(onion).isOnion && !(try NodeURL("https://onion.example").isOnion))
        for route in [NetworkRoute.environment, .direct, .proxy(try Proxy("socks5://127.0.0.1:9050")), .proxy(try Proxy("http://127.0.0.1:8118"))] {
            let refusal = try #require(route.refusal(of: nodes, environment: [:]), "\(route)")
            #expect(refusal.contains(onion) && refusal.contains("socks5h://"))
        }
        #expect(NetworkRoute.proxy(try Proxy("socks5h://127.0.0.1:9050")).refusal(of: nodes, environment: [:]) == nil)
        // The environment's socks5h proxy is as good, unless NO_PROXY takes the node out.
        #expect(NetworkRoute.environment.refusal(of: nodes, environment: ["ALL_PROXY": "socks5h://127.0.0.1:9050"]) == nil)
        #expect(NetworkRoute.environment.refusal(of: nodes, environment: ["ALL_PROXY": "socks5h://127.0.0.1:9050", "NO_PROXY": ".onion"]) != nil)
        // An alternate URL is tried too, so it is held to the same rule.
        #expect(NetworkRoute.direct.refusal(of: list(["https://node.example"], alternate: onion), environment: [:]) != nil)
    }

    @Test func whetherAnyRequestIsProxied() throws {
        let nodes = list(["https://node.example"])
        #expect(!NetworkRoute.environment.isProxied(for: nodes, environment: [:]))
        #expect(NetworkRoute.environment.isProxied(for: nodes, environment: ["https_proxy": "http://corp:3128"]))
        #expect(!NetworkRoute.direct.isProxied(for: nodes, environment: ["https_proxy": "http://corp:3128"]))
        #expect(NetworkRoute.proxy(try Proxy("socks5h://127.0.0.1:9050")).isProxied(for: nodes, environment: [:]))
    }
}

@Suite struct PoolRouteTests {
    let transport = ScriptedTransport()

    /// Status checks, reads and submissions alike carry the pool's route and circuit.
    @Test(.timeLimit(.minutes(1))) func everyRequestCarriesTheRouteAndTheCircuit() async throws {
        transport.node("http://a:1", paths: ["/api/blocks/getHeight": .json(#"{"success":true,"height":1000}"#)])
        let route = NetworkRoute.proxy(try Proxy("socks5h://127.0.0.1:9050"))
        // A clock that stands still: no timeout may beat the scripted answers in a full run.
        let pool = Fixtures.pool(transport, nodes: ["http://a:1"], clock: AnyClock(ManualClock())) { configuration in
            configuration.route = route
            configuration.circuit = "c1"
        }
        #expect(try await NodeClient(pool: pool).height() == 1000)
        let requests = transport.requests
        #expect(requests.count == 2 && requests.allSatisfy { $0.route == route && $0.circuit == "c1" })
    }

    @Test func throughAProxyANodeHasTheTimeACircuitTakes() throws {
        let direct = NodePool.Configuration(route: .direct, proxied: false)
        let proxied = NodePool.Configuration(route: .proxy(try Proxy("socks5h://127.0.0.1:9050")), proxied: true)
        #expect(direct.statusTimeout == NodePool.Configuration().statusTimeout && !direct.isProxied)
        #expect(proxied.isProxied && proxied.connectTimeout >= .seconds(20) && proxied.statusTimeout >= .seconds(20))
        #expect(proxied.hedgeDelayBounds.lowerBound == direct.hedgeDelayBounds.lowerBound, "the hedge keeps its floor")
        #expect(proxied.hedgeDelayBounds.upperBound > direct.hedgeDelayBounds.upperBound, "and may follow a slow circuit's latency")
    }
}

@Suite struct CircuitNameTests {
    @Test func oneAccountOneNameAndNoneToBeReadFromItsAddress() throws {
        let passphrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
        let first = KeyPair(passphrase: try Passphrase(validating: passphrase))
        let again = KeyPair(passphrase: try Passphrase(validating: passphrase))
        let other = KeyPair(passphrase: try Passphrase(validating: "process gospel angry height between flat always clock suit refuse shove verb"))
        #expect(first.circuitName == again.circuitName)
        #expect(first.circuitName != other.circuitName)
        #expect(first.circuitName.count == 32 && Hex.decode(first.circuitName) != nil)
        for known in [first.address.description, first.publicKey.hex] { #expect(!known.contains(first.circuitName)) }
    }
}
