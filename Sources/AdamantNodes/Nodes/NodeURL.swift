public import AdamantCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        guard let parts = URLComponents(string: trimmed), parts.scheme != nil else { throw .malformed(text) }
        let scheme = parts.scheme!.lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(text) }
        guard let rawHost = parts.percentEncodedHost, !rawHost.isEmpty else { throw .missingHost(text) }
        guard parts.user == nil, parts.password == nil else { throw .credentials(text) }
        guard parts.query == nil, parts.fragment == nil else { throw .queryOrFragment(text) }
        if let port = parts.port, !(1...65_535).contains(port) { throw .malformed(text) }

        let host = rawHost.contains(":") && !rawHost.hasPrefix("[") ? "[\(rawHost)]" : rawHost  // IPv6
        let port = parts.port.map { ":\($0)" } ?? ""
        var path = parts.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        description = "\(scheme)://\(host.lowercased())\(port)\(path)"
    }

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
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xf, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    private static let queryAllowed = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$'()*,;:@/".utf8))

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
        case .malformed(let text): "\(text.quoted) is not a node URL such as https://clown.adamant.im or http://127.0.0.1:36666"
        case .unsupportedScheme(let text): "\(text.quoted): a node URL starts with http:// or https://"
        case .missingHost(let text): "\(text.quoted): a node URL needs a host"
        // Not repeated: it holds a password.
        case .credentials: "a node URL cannot carry a user name or password"
        case .queryOrFragment(let text): "\(text.quoted): a node URL has no query (?…) or fragment (#…)"
        }
    }
}
