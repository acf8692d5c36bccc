public import AdamantCLI

/// Why `watch` could not show a notification through the command's own outputs: the watch
/// stops, and the notification is shown at the next start.
public enum ShowFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Standard output took nothing more while the command was being stopped: its reader
    /// stopped reading.
    case outputStopped
    /// Standard output cannot be written.
    case outputUnwritable
    /// `--exec`'s command could not be started.
    case hookNotStarted(ChildProcess.SpawnError)

    /// What failed, in a phrase.
    public var description: String {
        switch self {
        case .outputStopped: "standard output took nothing more before the stop"
        case .outputUnwritable: "standard output cannot be written"
        case .hookNotStarted(let error): "--exec could not start: \(error)"
        }
    }
}
