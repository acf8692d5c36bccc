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
}

/// A route with libcurl's proxy variables read, once: what each request goes through. Every
/// request is then given its proxy, or none, explicitly (`CURLOPT_PROXY`, `CURLOPT_NOPROXY`),
/// so libcurl never decides otherwise from the variables, and what `nodes` shows is what
/// happens. A proxy the variables name is then treated as one set by `--proxy`.
public struct ResolvedRoute: Sendable, Hashable {
    /// The setting it was resolved from.
    public let setting: NetworkRoute
    private let environment: EnvironmentProxy

    /// `setting`, with `environment` as the process's.
    public init(_ setting: NetworkRoute, environment: [String: String]) {
        self.setting = setting
        self.environment = EnvironmentProxy(setting == .environment ? environment : [:])
    }

    /// Straight to the nodes.
    public static let direct = ResolvedRoute(.direct, environment: [:])

    /// What a request to `url` goes through.
    public func hop(to url: NodeURL) -> ProxyHop {
        switch setting {
        case .direct: .direct
        case .proxy(let proxy): .proxy(proxy)
        case .environment: environment.hop(to: url)
        }
    }

    /// The proxies requests to `list`'s nodes go through.
    public func proxies(for list: NodeList) -> Set<Proxy> { Set(Self.urls(of: list).compactMap { hop(to: $0).proxy }) }

    /// Whether any request to `list`'s nodes goes through a proxy.
    public func isProxied(for list: NodeList) -> Bool { Self.urls(of: list).contains { hop(to: $0) != .direct } }

    /// Whether `url` can be reached this way: a `.onion` host means nothing outside Tor, and
    /// resolving it here would tell the local resolver which hidden service is wanted.
    public func reaches(_ url: NodeURL) -> Bool { !url.isOnion || hop(to: url).proxy?.scheme == .socks5h }

    /// Nil when every node of `list` can be reached this way; else why not, in a line.
    public func refusal(of list: NodeList) -> String? {
        for url in Self.urls(of: list) {
            // The value is not repeated: it may hold a password.
            if case .environmentProxy(let variable, nil) = hop(to: url) {
                return
                    "\(variable) names no proxy adm-push can use: give socks5h://, socks5:// or http://, a host and a port, "
                    + "without credentials, or set --proxy (none for no proxy)"
            }
            if !reaches(url) {
                return
                    "\(url) is an onion service: it needs a socks5h:// proxy such as Tor's (--proxy socks5h://127.0.0.1:9050)"
            }
        }
        return nil
    }

    /// Every URL a request may go to: each node's, and its alternate's.
    private static func urls(of list: NodeList) -> [NodeURL] { list.endpoints.flatMap(\.urls) }
}

/// What one request goes through.
public enum ProxyHop: Sendable, Hashable, CustomStringConvertible {
    /// Straight to the node.
    case direct
    /// Through the proxy the route names.
    case proxy(Proxy)
    /// Through the proxy an environment variable names: the variable, and its value as a
    /// proxy; nil when it names none adm-push can use (libcurl takes more forms, socks4:// and
    /// credentials among them), and then the route is refused.
    case environmentProxy(variable: String, Proxy?)

    /// The proxy, if any, and if it reads as one.
    public var proxy: Proxy? {
        switch self {
        case .direct: nil
        case .proxy(let proxy): proxy
        case .environmentProxy(_, let proxy): proxy
        }
    }

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
        // Before anything that would quote it: it holds a password.
        guard !trimmed.contains("@") else { throw .credentials(text) }
        guard let separator = trimmed.firstRange(of: "://") else { throw .malformed(text) }
        let schemeText = trimmed[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else { throw .unsupportedScheme(text) }
        var authority = trimmed[separator.upperBound...]
        if authority.last == "/" { authority = authority.dropLast() }
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
            guard host.count > 2, host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
            else { return nil }
        } else {
            host = authority.prefix { $0 != ":" }
            guard !host.isEmpty,
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
            else { return nil }
        }
        let rest = authority[host.endIndex...]
        guard !rest.isEmpty else { return (host, nil) }
        let digits = rest.dropFirst()
        guard rest.first == ":", (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(digits), (1...65_535).contains(port)
        else { return nil }
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
            "\(text.quoted) is not a proxy URL: give scheme://host[:port] (1080 when left out), such as socks5h://127.0.0.1:9050, or none"
        case .unsupportedScheme(let text):
            "\(text.quoted) has a scheme adm-push does not use: give socks5h:// (names resolved by the proxy, as Tor wants), socks5:// or http://"
        // Not repeated: it holds a password.
        case .credentials:
            "a proxy URL carries no credentials: leave them out (each account sends its own SOCKS username, which keeps accounts on separate Tor circuits)"
        }
    }
}
