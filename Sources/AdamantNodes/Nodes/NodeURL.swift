public import AdamantCore

/// A node's base URL: `http` or `https`, a host, an optional port and path prefix; no
/// credentials, query or fragment. Normalised so equal nodes compare equal.
public struct NodeURL: Sendable, Hashable, Comparable, StringCodable {
    /// `scheme://host[:port][/prefix]`, lowercase scheme and host, no trailing slash.
    public let description: String

    /// The same, for `StringCodable`.
    public init(parsing text: String) throws { try self.init(text) }

    /// Parses and normalises a node's URL; anything but a bare base URL is refused with the reason.
    public init(_ text: String) throws(NodeURLError) {
        let trimmed = text.trimmingSpaces
        guard let separator = trimmed.firstRange(of: "://"), Self.isScheme(trimmed[..<separator.lowerBound]) else {
            throw .malformed(text)
        }
        let scheme = trimmed[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(text) }
        let rest = trimmed[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let tail = rest[authority.endIndex...]
        guard !authority.isEmpty, authority.last != "@" else { throw .missingHost(text) }
        guard !authority.contains("@") else { throw .credentials(text) }
        guard !tail.contains("?"), !tail.contains("#") else { throw .queryOrFragment(text) }
        guard let (parsedHost, port) = Self.hostAndPort(authority), Self.isPath(tail) else { throw .malformed(text) }
        // A name with trailing dots is the same name to libcurl and the resolver: without them
        // here, it is one node, and what it is (an onion service, a name NO_PROXY takes out)
        // is seen.
        var host = parsedHost
        if !host.hasPrefix("[") {
            while host.hasSuffix(".") { host.removeLast() }
            guard !host.isEmpty else { throw .malformed(text) }
        }

        var path = String(tail)
        while path.hasSuffix("/") { path.removeLast() }
        description = "\(scheme)://\(host.lowercased())\(port.map { ":\($0)" } ?? "")\(path)"
    }

    /// `http` or `https`.
    public var scheme: String { String(description.prefix { $0 != ":" }) }

    /// Lowercase; an IPv6 address keeps its brackets.
    public var host: String {
        let authority = description.dropFirst(scheme.count + 3).prefix { $0 != "/" }
        return String(authority.hasPrefix("[") ? authority.prefix { $0 != "]" } + "]" : authority.prefix { $0 != ":" })
    }

    /// A Tor onion service's address: reachable only through Tor.
    public var isOnion: Bool { host.hasSuffix(".onion") }

    /// Where the node's client socket listens, given `wsClient.port`, as the iOS app places it:
    /// for `http`, the node's host on that port; for `https`, the node's own origin, where a
    /// proxy serves the socket.
    package func socketOrigin(port: UInt16) -> String {
        guard scheme == "http" else {
            return "\(scheme)://\(description.dropFirst(scheme.count + 3).prefix { $0 != "/" })"
        }
        return "http://\(host):\(port)"
    }

    /// RFC 3986: a letter, then letters, digits, `+`, `-` or `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, isLetter(first) else { return false }
        return text.utf8.allSatisfy {
            isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    /// `host[:port]` or `[IPv6][:port]`; nil when either part is not one.
    private static func hostAndPort(_ authority: Substring) -> (host: Substring, port: Int?)? {
        let host: Substring
        let afterHost: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            afterHost = authority[authority.index(after: close)...]
            guard
                host.dropFirst().dropLast().utf8.allSatisfy({
                    isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
                }),
                host.count > 2
            else { return nil }
        } else {
            host = authority.prefix { $0 != ":" }
            afterHost = authority[host.endIndex...]
            // No escapes: libcurl decodes them, so one could hide a dot, or a whole name.
            guard !host.isEmpty, host.utf8.allSatisfy(hostAllowed.contains) else { return nil }
        }
        guard !afterHost.isEmpty else { return (host, nil) }
        let digits = afterHost.dropFirst()
        guard afterHost.first == ":", !digits.isEmpty, digits.utf8.allSatisfy(isDigit), digits.count <= 5,
            let port = Int(digits), (1...65_535).contains(port)
        else { return nil }
        return (host, port)
    }

    private static func isPath(_ text: Substring) -> Bool { isPercentEncoded(text, allowing: pathAllowed) }

    /// Every byte allowed or part of a `%XX` escape.
    private static func isPercentEncoded(_ text: Substring, allowing allowed: Set<UInt8>) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
            } else {
                guard allowed.contains(bytes[index]) else { return false }
                index += 1
            }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (0x61...0x66).contains(byte | 0x20) }

    private static let unreservedAndSubDelimiters = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=".utf8)
    private static let hostAllowed = Set(unreservedAndSubDelimiters)
    private static let pathAllowed = Set(unreservedAndSubDelimiters + Array(":@/".utf8))

    /// The full URL of an API path such as `/api/node/status`, with percent-encoded query items.
    func endpoint(_ path: String, query: [(name: String, value: String)] = []) -> String {
        guard !query.isEmpty else { return description + path }
        let pairs = query.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }
        return description + path + "?" + pairs.joined(separator: "&")
    }

    /// A query name or value with every byte percent-encoded but RFC 3986's unreserved
    /// characters and the sub-delimiters that cannot end or split a query item.
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if queryAllowed.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xf, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    private static let queryAllowed = Set(
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$'()*,;:@/".utf8))

    /// Orders by the normalised text.
    public static func < (lhs: NodeURL, rhs: NodeURL) -> Bool { lhs.description < rhs.description }
}

/// Why text is not a node URL; each case carries the text given.
public enum NodeURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a URL at all.
    case malformed(String)
    /// Not `http` or `https`.
    case unsupportedScheme(String)
    /// No host.
    case missingHost(String)
    /// A user name or password in the URL.
    case credentials(String)
    /// A query or a fragment, which a base URL has no use for.
    case queryOrFragment(String)

    /// The reason, quoting the text.
    public var description: String {
        switch self {
        case .malformed(let text):
            "\(text.quoted) is not a node URL such as https://clown.adamant.im or http://127.0.0.1:36666"
        case .unsupportedScheme(let text): "\(text.quoted): a node URL starts with http:// or https://"
        case .missingHost(let text): "\(text.quoted): a node URL needs a host"
        // Not repeated: it holds a password.
        case .credentials: "a node URL cannot carry a user name or password"
        case .queryOrFragment(let text): "\(text.quoted): a node URL has no query (?…) or fragment (#…)"
        }
    }
}
