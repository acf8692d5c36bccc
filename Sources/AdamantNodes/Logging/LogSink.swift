/// Where the library reports what it does. It never prints; the CLI decides where lines go.
/// Messages name nodes and outcomes, never secrets or transaction bodies.
public protocol LogSink: Sendable {
    /// `message` is built only if the sink evaluates it, so a dropped line costs nothing.
    func log(_ level: LogLevel, _ message: @autoclosure () -> String)
    /// Whether lines of `level` are kept: a caller leaves out detail nobody will read.
    func logs(_ level: LogLevel) -> Bool
}

extension LogSink {
    /// Every level, unless the sink says otherwise.
    public func logs(_ level: LogLevel) -> Bool { true }
}

/// How much a line matters.
public enum LogLevel: Int, Sendable, Hashable, Comparable {
    /// `debug`: detail for debugging. `info`: what happened (a node failed, a pass ran).
    /// `warning`: something the user may want to act on. `error`: what failed.
    case debug, info, warning, error

    /// `debug` below `info` below `warning`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The default: drops everything, building nothing.
public struct SilentLog: LogSink {
    /// The silent sink.
    public init() {}
    /// Drops the line without building it.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {}
    /// None.
    public func logs(_ level: LogLevel) -> Bool { false }
}
