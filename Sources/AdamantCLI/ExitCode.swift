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
    /// Output, or a file of the home, could not be written: a full disk, a closed pipe, a
    /// read-only or locked store (EX_IOERR).
    case outputFailed = 74
    /// Not done yet, and worth trying again (EX_TEMPFAIL): durably queued and not yet applied (it
    /// will be retried), another watch of the account running, or the keyring locked.
    case temporaryFailure = 75

    /// One line each, for `--help`.
    public var meaning: String {
        switch self {
        case .success: "done"
        case .rejected: "rejected for good (the reason is printed)"
        case .usage: "usage error or invalid input"
        case .invalidData: "data from the network could not be verified"
        case .unavailable: "no usable node, or not found before the deadline"
        case .outputFailed:
            "output or a file of the home could not be written (a closed pipe, a full disk, a lock held too long)"
        case .temporaryFailure: "not done yet: durably queued (will retry), or the keyring is locked"
        }
    }
}

/// An error a command reports on one line and exits with.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let exitCode: ExitCode
    /// Mistakes in the command line also print the command's usage line.
    public let showsUsage: Bool

    public init(_ message: String, exitCode: ExitCode) {
        self.init(message, exitCode: exitCode, showsUsage: false)
    }

    private init(_ message: String, exitCode: ExitCode, showsUsage: Bool) {
        self.message = message
        self.exitCode = exitCode
        self.showsUsage = showsUsage
    }

    /// The command line itself is wrong (exit 64, with the usage line).
    public static func usage(_ message: String) -> CLIError { CLIError(message, exitCode: .usage, showsUsage: true) }

    /// The command line is fine but what it pointed at is not (exit 64, no usage line).
    public static func invalidInput(_ message: String) -> CLIError { CLIError(message, exitCode: .usage) }

    public var description: String { message }
}
