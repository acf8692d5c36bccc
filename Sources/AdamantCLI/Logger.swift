import AdamantCore
public import AdamantNodes

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The long-running commands' log: one line per event on standard error. Under systemd the
/// journal stamps each line itself and reads its level from a `<N>` prefix; anywhere else a
/// line carries its own UTC time and level word.
public struct Logger: LogSink {
    public enum Style: Sendable, Hashable {
        /// `<6>message`: the syslog priority prefix journald's stream parser takes off.
        case journal
        /// `2026-12-01T14:30:00.123Z info  message`.
        case timestamped
    }

    public let threshold: LogLevel
    public let style: Style
    let output: Output
    /// Cleared before a line is written, and drawn again by its next update.
    public let progress: ProgressLine?

    public init(threshold: LogLevel, style: Style, output: Output, progress: ProgressLine? = nil) {
        self.threshold = threshold
        self.style = style
        self.output = output
        self.progress = progress
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= threshold else { return }
        let line = Self.line(level, message(), style: style, unixMillis: Self.now())
        if let progress { progress.interrupt { output.error(line) } } else { output.error(line) }
    }

    /// Whether lines of `level` are written: a caller can leave out detail nobody will read.
    public func logs(_ level: LogLevel) -> Bool { level >= threshold }

    /// One line, its control characters escaped, so a node's text cannot forge another.
    public static func line(_ level: LogLevel, _ message: String, style: Style, unixMillis: Int64) -> String {
        switch style {
        case .journal: "<\(level.syslogPriority)>" + message.escapingControlCharacters
        case .timestamped: timestamp(unixMillis) + " " + level.word + " " + message.escapingControlCharacters
        }
    }

    /// ISO 8601 in UTC with milliseconds: `2026-12-01T14:30:00.123Z`.
    public static func timestamp(_ unixMillis: Int64) -> String {
        let (seconds, millis) = unixMillis.quotientAndRemainder(dividingBy: 1000)
        var time = time_t(seconds - (millis < 0 ? 1 : 0))
        var fields = tm()
        guard gmtime_r(&time, &fields) != nil else { return "????-??-??T??:??:??.???Z" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let date = "\(padded(fields.tm_year + 1900, 4))-\(padded(fields.tm_mon + 1, 2))-\(padded(fields.tm_mday, 2))"
        let clock = "\(padded(fields.tm_hour, 2)):\(padded(fields.tm_min, 2)):\(padded(fields.tm_sec, 2))"
        return "\(date)T\(clock).\(padded(Int32((millis + 1000) % 1000), 3))Z"
    }

    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// `.journal` when standard error is the stream systemd connected to the journal:
    /// `JOURNAL_STREAM` holds that stream's `device:inode` (systemd.exec(5)), and a child
    /// that inherited the variable with stderr sent elsewhere has another, so both are compared.
    public static func style(environment: [String: String], standardError descriptor: Int32 = 2) -> Style {
        guard let value = environment["JOURNAL_STREAM"] else { return .timestamped }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return .timestamped }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .timestamped }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode ? .journal : .timestamped
    }
}

extension LogLevel {
    /// syslog(3)'s: what sd-daemon(3)'s SD_DEBUG … SD_ERR prefixes carry.
    var syslogPriority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .warning: 4
        case .error: 3
        }
    }

    /// Padded to one width, so messages line up.
    var word: String {
        switch self {
        case .debug: "debug"
        case .info: "info "
        case .warning: "warn "
        case .error: "error"
        }
    }
}
