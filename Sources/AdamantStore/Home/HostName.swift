#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine's name, which tells a holder on this host (whose process can be asked whether
/// it is still there) from one elsewhere.
package enum HostName {
    /// This host's name, as lease holders on it write themselves down.
    package static let current: String = {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty || text.contains(" ") ? "localhost" : text
    }()
}
