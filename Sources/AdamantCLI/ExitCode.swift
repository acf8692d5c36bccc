/// The exit codes every adm-* command documents (sysexits where one fits).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Done.
    case success = 0
    /// Rejected for good; the reason is printed.
    case rejected = 1
    /// Usage error or invalid input (EX_USAGE).
    case usage = 64
    /// Data from the network that could not be verified (EX_DATAERR).
    case invalidData = 65
    /// No usable node, or not found before the deadline (EX_UNAVAILABLE).
    case unavailable = 69
    /// Durably queued, not yet applied; it will be retried (EX_TEMPFAIL).
    case queued = 75

    /// One line each, for `--help`.
    public var meaning: String {
        switch self {
        case .success: "done"
        case .rejected: "rejected for good (the reason is printed)"
        case .usage: "usage error or invalid input"
        case .invalidData: "data from the network could not be verified"
        case .unavailable: "no usable node, or not found before the deadline"
        case .queued: "durably queued, not yet applied (will retry)"
        }
    }
}

/// An error a command reports on one line and exits with.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let exitCode: ExitCode
    /// Usage errors also print the command's usage line.
    public var isUsage: Bool { exitCode == .usage }

    public init(_ message: String, exitCode: ExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    public static func usage(_ message: String) -> CLIError { CLIError(message, exitCode: .usage) }

    public var description: String { message }
}
