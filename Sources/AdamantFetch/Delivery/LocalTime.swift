#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The local time of day, for quiet hours: minutes since local midnight, as the C library's
/// time zone (`TZ`, `/etc/localtime`) has it.
public enum LocalTime {
    /// The minutes since local midnight at `unixMillis`; since UTC's midnight when the C
    /// library cannot say.
    public static func minuteOfDay(unixMillis: Int64) -> Int {
        var seconds = time_t(unixMillis / 1000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return Int((unixMillis / 60_000) % 1440) }
        return Int(parts.tm_hour) * 60 + Int(parts.tm_min)
    }
}
