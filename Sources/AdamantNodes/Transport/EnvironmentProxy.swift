import AdamantCore

/// The proxy libcurl takes from the environment for a URL, by its rules (libcurl-env(3)):
/// `NO_PROXY` first, then the scheme's variable (`http_proxy` only in lowercase, `https_proxy`
/// in either case), then `ALL_PROXY`; an empty variable is unset. Only for saying where a
/// request goes: libcurl itself applies them.
package struct EnvironmentProxy {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func hop(to url: NodeURL) -> ProxyHop {
        if let list = variable("no_proxy", "NO_PROXY"), Self.excludes(list.value, host: url.host) { return .direct }
        let named = url.scheme == "https" ? variable("https_proxy", "HTTPS_PROXY") : variable("http_proxy")
        guard let (name, value) = named ?? variable("all_proxy", "ALL_PROXY") else { return .direct }
        // A value without a scheme is an HTTP proxy to libcurl.
        let proxy = (try? Proxy(value)) ?? (value.contains("://") ? nil : try? Proxy("http://" + value))
        return .environmentProxy(variable: name, proxy)
    }

    private func variable(_ names: String...) -> (name: String, value: String)? {
        for name in names { if let value = environment[name], !value.trimmingSpaces.isEmpty { return (name, value) } }
        return nil
    }

    /// Whether `NO_PROXY`'s list takes `host` out: `*`, the host itself, a domain it is in
    /// (with or without a leading dot), or for an IPv4 host the address or a CIDR range.
    package static func excludes(_ list: String, host: String) -> Bool {
        let host = host.hasSuffix(".") ? String(host.dropLast()) : host
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        for entry in list.split(whereSeparator: { $0 == "," || $0 == " " }).map({ $0.lowercased() }) {
            if entry == "*" { return true }
            if let address = IPv4(bareHost) {
                if let range = IPv4Range(entry), range.contains(address) { return true }
                continue
            }
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
            if bareHost == bare || (!bare.isEmpty && bareHost.hasSuffix("." + bare)) { return true }
        }
        return false
    }
}

/// A dotted IPv4 address.
private struct IPv4 {
    let value: UInt32

    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        self.value = value
    }
}

/// `a.b.c.d` or `a.b.c.d/bits`.
private struct IPv4Range {
    let base: UInt32
    let mask: UInt32

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPv4(parts[0]) else { return nil }
        var bits = 32
        if parts.count == 2 {
            guard (1...2).contains(parts[1].count), let given = Int(parts[1]), (0...32).contains(given) else { return nil }
            bits = given
        }
        mask = bits == 0 ? 0 : UInt32.max << UInt32(32 - bits)
        base = address.value & mask
    }

    func contains(_ address: IPv4) -> Bool { address.value & mask == base }
}
