import AdamantNodes

/// What sets a route, from a flag, a variable or a file: `setting ‖ \n ‖ NO_PROXY ‖ \n ‖ node
/// URL`. A proxy reads back from what it prints; a node NO_PROXY takes out goes direct, `*`
/// takes out every node; an onion node is refused unless its route resolves names there, and
/// whether it is one is judged here apart from `NodeURL`, on the URL libcurl is given.
enum ProxyFuzz {
    static func run(_ data: [UInt8]) {
        let parts = data.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false).map {
            $0[...].text
        }
        let setting = parts[0]
        let noProxy = parts.count > 1 ? parts[1] : ""
        let urlText = parts.count > 2 ? parts[2] : ""
        let route = try? NetworkRoute(setting: setting)
        if case .proxy(let proxy)? = route {
            invariant((try? Proxy(proxy.description)) == proxy, "proxy \(setting) does not read back from \(proxy)")
            invariant((1...65_535).contains(proxy.port), "proxy \(setting) has port \(proxy.port)")
        }
        guard let url = try? NodeURL(urlText) else { return }
        let environment = ["https_proxy": setting, "http_proxy": setting, "no_proxy": noProxy]
        let hop = ResolvedRoute(.environment, environment: environment).hop(to: url)
        if EnvironmentProxy.excludes(noProxy, host: url.host) {
            invariant(hop == .direct, "\(url) is taken out by \(noProxy) yet goes \(hop)")
        }
        invariant(
            ResolvedRoute(.environment, environment: ["no_proxy": "*", "all_proxy": setting]).hop(to: url) == .direct,
            "* takes out \(url)")
        let onion = isOnion(libcurlsHost(of: url.description))
        let list = NodeList(endpoints: [NodeEndpoint(url: url)], nethash: .majority, source: .arguments)
        for candidate in [route, .environment, .direct].compactMap({ $0 }) {
            let resolved = ResolvedRoute(candidate, environment: environment)
            let refused = resolved.refusal(of: list) != nil
            let resolvesThere = resolved.hop(to: url).proxy?.scheme == .socks5h
            invariant(
                !onion || refused || resolvesThere, "\(url) is an onion service, yet goes \(resolved.hop(to: url))")
            invariant(onion == url.isOnion, "\(url): NodeURL says onion \(url.isOnion)")
        }
    }

    /// The host libcurl resolves or names to a proxy for `text`: after the scheme, to the
    /// path; past any user; without the port; escapes decoded; lowercase.
    static func libcurlsHost(of text: String) -> [UInt8] {
        let afterScheme = text.utf8.firstRange(of: "://".utf8).map { text.utf8[$0.upperBound...] } ?? text.utf8[...]
        var authority = afterScheme.prefix { !"/?#".utf8.contains($0) }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        if authority.first == UInt8(ascii: "[") { return Array(authority.prefix { $0 != UInt8(ascii: "]") }) }
        let host = authority.prefix { $0 != UInt8(ascii: ":") }
        var decoded: [UInt8] = []
        var index = host.startIndex
        while index < host.endIndex {
            let rest = host[index...]
            let digits = rest.dropFirst().prefix(2)
            if rest.first == UInt8(ascii: "%"), digits.count == 2,
                digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                let byte = UInt8(String(decoding: digits, as: UTF8.self), radix: 16)
            {
                decoded.append(byte)
                index = host.index(index, offsetBy: 3)
            } else {
                decoded.append(rest.first!)
                index = host.index(after: index)
            }
        }
        return decoded.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// A name in `.onion`, as the resolver reads it: trailing dots say nothing.
    static func isOnion(_ host: [UInt8]) -> Bool {
        var name = host[...]
        while name.last == UInt8(ascii: ".") { name = name.dropLast() }
        return name.count >= 6 && name.suffix(6).elementsEqual(".onion".utf8)
    }
}
