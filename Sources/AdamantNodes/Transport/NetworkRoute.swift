import AdamantCore

/// How requests reach the nodes: the one setting every command shares (`--proxy`).
public enum NetworkRoute: Sendable, Hashable, CustomStringConvertible {
    /// As libcurl's proxy variables (`https_proxy`, `http_proxy`, `ALL_PROXY`, `NO_PROXY`)
    /// say; straight to the nodes when none is set. The default.
    case environment
    /// Straight to the nodes, whatever the environment says (`--proxy none`).
    case direct
    /// Through this proxy, whatever the environment says.
    case proxy(Proxy)

    /// `none` or a proxy URL; anything else is refused with the reason.
    public init(setting text: String) throws(ProxyError) {
        self = text.trimmingSpaces.lowercased() == "none" ? .direct : .proxy(try Proxy(text))
    }

    /// The setting as it is written: `none`, a proxy URL, or `environment`.
    public var description: String {
        switch self {
        case .environment: "environment"
        case .direct: "none"
        case .proxy(let proxy): proxy.description
        }
    }

    /// What a request to `url` goes through, with `environment` as the process's.
    public func hop(to url: NodeURL, environment: [String: String]) -> ProxyHop {
        switch self {
        case .direct: return .direct
        case .proxy(let proxy): return .proxy(proxy)
        case .environment: return EnvironmentProxy(environment).hop(to: url)
        }
    }

    /// Whether any request to `list`'s nodes goes through a proxy.
    public func isProxied(for list: NodeList, environment: [String: String]) -> Bool {
        list.endpoints.flatMap { [$0.url] + ($0.alternate.map { [$0] } ?? []) }.contains { hop(to: $0, environment: environment) != .direct }
    }

    /// Nil when every node of `list` can be reached this way; else why not: a `.onion` host
    /// means nothing outside Tor, and resolving it here would tell the local resolver which
    /// hidden service is wanted.
    public func refusal(of list: NodeList, environment: [String: String]) -> String? {
        for endpoint in list.endpoints {
            for url in [endpoint.url] + (endpoint.alternate.map { [$0] } ?? []) where url.isOnion {
                switch hop(to: url, environment: environment) {
                case .proxy(let proxy) where proxy.scheme == .socks5h: continue
                case .environmentProxy(_, let proxy?) where proxy.scheme == .socks5h: continue
                default:
                    return "\(url) is an onion service: it needs a socks5h:// proxy such as Tor's (--proxy socks5h://127.0.0.1:9050)"
                }
            }
        }
        return nil
    }
}

/// What one request goes through.
public enum ProxyHop: Sendable, Hashable, CustomStringConvertible {
    /// Straight to the node.
    case direct
    /// Through the proxy the route names.
    case proxy(Proxy)
    /// Through the proxy an environment variable names: the variable, and its value as a
    /// proxy when it reads as one (libcurl takes some forms this does not, a bare host among them).
    case environmentProxy(variable: String, Proxy?)

    /// `direct`, or `via` the proxy (and the variable that names it).
    public var description: String {
        switch self {
        case .direct: "direct"
        case .proxy(let proxy): "via \(proxy)"
        case .environmentProxy(let variable, let proxy): "via \(proxy.map { "\($0)" } ?? "a proxy") (\(variable))"
        }
    }
}

/// A proxy's URL: `socks5h://`, `socks5://` or `http://`, a host and a port (1080 when none
/// is given, as libcurl does); no credentials, path, query or fragment.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of proxy libcurl is given.
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        /// SOCKS5, names resolved by the proxy: Tor's kind.
        case socks5h
        /// SOCKS5, names resolved here: the local resolver learns every node's name.
        case socks5
        /// An HTTP proxy, through CONNECT.
        case http
    }

    /// What kind of proxy it is.
    public let scheme: Scheme
    /// Lowercase; an IPv6 address keeps its brackets.
    public let host: String
    /// 1 to 65535.
    public let port: Int

    /// `scheme://host:port`, the form libcurl takes.
    public var description: String { "\(scheme.rawValue)://\(host):\(port)" }

    /// Whether the proxy takes a SOCKS username, which Tor uses to keep streams apart.
    public var isSOCKS: Bool { scheme != .http }

    /// Parses a proxy URL; anything else is refused with the reason.
    public init(_ text: String) throws(ProxyError) {
        let trimmed = text.trimmingSpaces
        guard let separator = trimmed.firstRange(of: "://") else { throw .malformed(text) }
        let schemeText = trimmed[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else { throw .unsupportedScheme(text) }
        var authority = trimmed[separator.upperBound...]
        if authority.last == "/" { authority = authority.dropLast() }
        guard !authority.contains("@") else { throw .credentials(text) }
        guard !authority.contains(where: { "/?#".contains($0) }) else { throw .malformed(text) }
        guard let (host, port) = Self.hostAndPort(authority) else { throw .malformed(text) }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port ?? 1080
    }

    /// `host[:port]` or `[IPv6][:port]`.
    private static func hostAndPort(_ authority: Substring) -> (host: Substring, port: Int?)? {
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            guard host.count > 2, host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            host = authority.prefix { $0 != ":" }
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else { return nil }
        }
        let rest = authority[host.endIndex...]
        guard !rest.isEmpty else { return (host, nil) }
        let digits = rest.dropFirst()
        guard rest.first == ":", (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(digits), (1...65_535).contains(port) else { return nil }
        return (host, port)
    }
}

/// Why a proxy setting was refused; each says what to write instead.
public enum ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not `scheme://host[:port]`.
    case malformed(String)
    /// A scheme other than socks5h, socks5 and http.
    case unsupportedScheme(String)
    /// `user:password@` in the URL.
    case credentials(String)

    /// What is wrong, and what to write instead.
    public var description: String {
        switch self {
        case .malformed(let text):
            "\(text.quoted) is not a proxy URL: give scheme://host:port, such as socks5h://127.0.0.1:9050, or none"
        case .unsupportedScheme(let text):
            "\(text.quoted) has a scheme adm-push does not use: give socks5h:// (names resolved by the proxy, as Tor wants), socks5:// or http://"
        case .credentials(let text):
            "\(text.quoted) carries credentials: leave them out (each account sends its own SOCKS username, which keeps accounts on separate Tor circuits)"
        }
    }
}
