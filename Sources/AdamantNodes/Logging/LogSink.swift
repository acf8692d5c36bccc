/// Where the library reports what it does. It never prints; the CLI decides where lines go.
/// Messages name nodes and outcomes, never secrets or transaction bodies.
public protocol LogSink: Sendable {
    /// `message` is built only if the sink evaluates it, so a dropped line costs nothing.
    func log(_ level: LogLevel, _ message: @autoclosure () -> String)
}

public enum LogLevel: Int, Sendable, Hashable, Comparable {
    case debug, info, warning, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The default: drops everything, building nothing.
public struct SilentLog: LogSink {
    public init() {}
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {}
}
