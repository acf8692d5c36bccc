public import AdamantCLI
import AdamantCore
public import AdamantFetch
import AdamantNodes
import AdamantStore

/// What `adm-fetch watch` logs of what it shows and how it ends, and the exit code and error
/// line each way of ending is.
public enum WatchReport {
    /// The progress line through a backlog: only while pages come back full, cleared at the end.
    public static func showing(_ line: ProgressLine) -> @Sendable (WatchProgress) -> Void {
        { progress in
            if progress.caughtUp { return line.clear() }
            line.update(
                "catching up: \(progress.read) read, block \(progress.height)"
                    + (progress.chainHeight.map { " of \($0)" } ?? ""))
        }
    }

    /// A stop asked for while a notification was being shown (its reader stopped reading):
    /// the stop is not held up, and nothing is lost.
    public static func stopped(while failure: WatchGroup.Failure, _ logger: Logger) {
        if case .notHandedOver(let id, let why) = failure.error {
            logger.log(
                .warning,
                "watch: stopped while \(why): transaction \(id) and those after it are shown at the next start")
        }
    }

    /// How a watch that failed ends: the error, or for a notification it could not show, the
    /// line logged and exit 74.
    public static func exitCode(for error: WatchGroup.Failure, _ logger: Logger) throws(CLIError) -> ExitCode {
        switch error.error {
        case .noUsableNode(let error):
            throw CLIError(error.description, exitCode: .unavailable)
        case .leaseRefused(.held(let holder)):
            throw CLIError(
                "another watch of \(error.account) runs on this home (\(holder)); stop it first, or give this one another --home",
                exitCode: .temporaryFailure)
        case .leaseRefused(let refusal):
            throw CLIError(WatchError.leaseRefused(refusal).description, exitCode: .rejected)
        case .aheadOfChain(let height, let tip):
            throw CLIError.invalidInput(
                "--from-height \(height) is past the chain's tip, block \(tip): give a height up to \(tip), or leave it out to start at the current block"
            )
        case .notHandedOver(let id, let failure):
            // Standard output's own failure is reported by Tool, as for every command.
            logger.log(
                .error,
                "watch: stopped: transaction \(id) could not be shown (\(failure)); it is shown at the next start")
            return .outputFailed
        case .store(let failure):
            throw CLIError(storeError: failure)
        }
    }
}
