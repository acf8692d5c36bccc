import AdamantStore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who holds a lease: `host pid nonce`, one per outbox (several may share a process). A holder
/// on this host whose process is gone has crashed, and its lease is free at once instead of at
/// its expiry.
enum LeaseHolder {
    static func make() -> String { "\(HostName.current) \(getpid()) \(nonce())" }

    /// Eight random hex digits, telling apart the outboxes one process opens.
    private static func nonce() -> String {
        let digits = String(UInt32.random(in: .min ... .max), radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    static func isGone(_ holder: String) -> Bool {
        let parts = holder.split(separator: " ")
        guard parts.count == 3, parts[0] == HostName.current, let pid = pid_t(parts[1]), pid > 0, pid != getpid() else {
            return false
        }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}
