#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// libcurl's proxy variables, read once, and what they make of a URL by libcurl 7.88's rules
/// (libcurl-env(3), its noproxy.c): `NO_PROXY` first, then the scheme's variable
/// (`http_proxy` only in lowercase, `https_proxy` in either case), then `ALL_PROXY`; the
/// lowercase name before the uppercase one; an empty variable is unset, a blank one is set.
/// libcurl is then told the result for every request, so it never decides otherwise.
package struct EnvironmentProxy: Sendable, Hashable {
    static let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// The variables that are set.
    let variables: [String: String]

    init(_ environment: [String: String]) {
        variables = environment.filter { Self.names.contains($0.key) && !$0.value.isEmpty }
    }

    func hop(to url: NodeURL) -> ProxyHop {
        if let list = variable("no_proxy", "NO_PROXY"), Self.excludes(list.value, host: url.host) { return .direct }
        let named = url.scheme == "https" ? variable("https_proxy", "HTTPS_PROXY") : variable("http_proxy")
        guard let (name, value) = named ?? variable("all_proxy", "ALL_PROXY") else { return .direct }
        // A value without a scheme is an HTTP proxy to libcurl.
        let proxy = (try? Proxy(value)) ?? (value.contains("://") ? nil : try? Proxy("http://" + value))
        return .environmentProxy(variable: name, proxy)
    }

    private func variable(_ names: String...) -> (name: String, value: String)? {
        names.lazy.compactMap { name in variables[name].map { (name, $0) } }.first
    }

    /// Whether `NO_PROXY`'s list takes `host` out. The list is `*` alone, or entries split at
    /// commas, spaces and tabs. A name matches an entry that is it or a domain it is in,
    /// without regard to case, one trailing and one leading dot of the entry ignored. An
    /// address matches an entry's address, or its range for `/bits`, the bits read as C's atoi
    /// reads them (0, for none, meaning the address alone).
    package static func excludes(_ list: String, host: String) -> Bool {
        guard !list.isEmpty, !host.isEmpty else { return false }
        if list == "*" { return true }
        let entries = list.split { $0 == "," || $0 == " " || $0 == "\t" }
        if host.hasPrefix("[") {
            guard let address = IPAddress(host.dropFirst().prefix { $0 != "]" }, family: AF_INET6) else { return false }
            return entries.contains { address.isIn($0) }
        }
        if let address = IPAddress(host, family: AF_INET) { return entries.contains { address.isIn($0) } }
        let name = Array((host.hasSuffix(".") ? host.dropLast() : host[...]).utf8.map(Self.lowercase))
        return entries.contains { entry in
            var pattern = entry.utf8[...]
            if pattern.last == UInt8(ascii: ".") { pattern = pattern.dropLast() }
            if pattern.first == UInt8(ascii: ".") { pattern = pattern.dropFirst() }
            let lowered = pattern.map(Self.lowercase)
            guard lowered.count <= name.count else { return false }
            return name.suffix(lowered.count).elementsEqual(lowered)
                && (lowered.count == name.count || name[name.count - lowered.count - 1] == UInt8(ascii: "."))
        }
    }

    /// ASCII only, as libcurl compares.
    private static func lowercase(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}

/// An IPv4 or IPv6 address, as inet_pton reads it (an IPv4 address is four decimal numbers
/// without leading zeros).
private struct IPAddress {
    let family: Int32
    let bytes: [UInt8]

    init?(_ text: some StringProtocol, family: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16)
        guard text.utf8.count < 128, !text.contains("\0"),
            String(text).withCString({ inet_pton(family, $0, &buffer) }) == 1
        else { return nil }
        self.family = family
        bytes = Array(buffer.prefix(family == AF_INET ? 4 : 16))
    }

    /// Whether `entry`, `address` or `address/bits`, takes this address in.
    func isIn(_ entry: Substring) -> Bool {
        let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddress(parts[0], family: family) else { return false }
        let bits = parts.count == 2 ? Self.atoi(parts[1]) : 0
        // No bits, or all of them: the address alone.
        let width = bytes.count * 8
        guard bits > 0, bits < width else { return bits == 0 || bits == width ? network.bytes == bytes : false }
        let whole = bits / 8
        let rest = bits % 8
        guard bytes.prefix(whole).elementsEqual(network.bytes.prefix(whole)) else { return false }
        let mask = UInt8(truncatingIfNeeded: 0xff << (8 - rest))
        return rest == 0 || bytes[whole] & mask == network.bytes[whole] & mask
    }

    /// C's atoi: an optional sign and the digits after it; -1 for what does not fit (libcurl
    /// then takes it as more bits than an address has).
    private static func atoi(_ text: Substring) -> Int {
        var rest = text.drop { $0 == " " || $0 == "\t" }
        let negative = rest.first == "-"
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard digits.count <= 9 else { return -1 }
        let value = Int(digits) ?? 0
        return negative && value != 0 ? -1 : value
    }
}
