import AdamantNodes

/// What sets a route, from a flag, a variable or a file: `setting ‖ \n ‖ NO_PROXY ‖ \n ‖ node
/// URL`. A proxy reads back from what it prints; a node NO_PROXY takes out goes direct, `*`
/// takes out every node, and an onion node is refused unless its route resolves names there.
enum ProxyFuzz {
    static func run(_ data: [UInt8]) {
        let parts = data.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false).map { $0[...].text }
        let setting = parts[0], noProxy = parts.count > 1 ? parts[1] : "", urlText = parts.count > 2 ? parts[2] : ""
        let route = try? NetworkRoute(setting: setting)
        if case .proxy(let proxy)? = route {
            invariant((try? Proxy(proxy.description)) == proxy, "proxy \(setting) does not read back from \(proxy)")
            invariant((1...65_535).contains(proxy.port), "proxy \(setting) has port \(proxy.port)")
        }
        guard let url = try? NodeURL(urlText) else { return }
        let environment = ["https_proxy": setting, "http_proxy": setting, "no_proxy": noProxy]
        let hop = NetworkRoute.environment.hop(to: url, environment: environment)
        if EnvironmentProxy.excludes(noProxy, host: url.host) { invariant(hop == .direct, "\(url) is taken out by \(noProxy) yet goes \(hop)") }
        invariant(NetworkRoute.environment.hop(to: url, environment: ["no_proxy": "*", "all_proxy": setting]) == .direct, "* takes out \(url)")
        let list = NodeList(endpoints: [NodeEndpoint(url: url)], nethash: .majority, source: .arguments)
        for candidate in [route, .environment, .direct].compactMap({ $0 }) {
            let refused = candidate.refusal(of: list, environment: environment) != nil
            let resolvesThere = switch candidate.hop(to: url, environment: environment) {
            case .proxy(let proxy), .environmentProxy(_, let proxy?): proxy.scheme == .socks5h
            default: false
            }
            invariant(refused == (url.isOnion && !resolvesThere), "\(url) via \(candidate): refused \(refused)")
        }
    }
}
