public import AdamantCLI
import AdamantCore
public import AdamantFetch
import AdamantNodes

/// `--exec`: one run of the command per notification, through /bin/sh, with the
/// notification in its environment and the passphrase taken out of it.
public struct NotificationHook: Sendable {
    /// A hook still running after this is killed.
    public static let timeout: Duration = .seconds(60)

    let command: String
    let environment: [String: String]
    let logger: Logger

    /// A hook running `command` with `environment`, less the passphrase.
    public init(command: String, environment: [String: String], logger: Logger) {
        self.command = command
        var inherited = environment
        inherited["ADM_PASSPHRASE"] = nil
        self.environment = inherited
        self.logger = logger
    }

    /// Throws only when the hook could not be started; a hook that fails is logged.
    public func run(for notification: WatchNotification) async throws(HandOverFailure) {
        let result = notification.result
        var environment = self.environment
        environment["ADM_ACCOUNT"] = notification.account.description
        environment["ADM_TITLE"] = result.notification.title
        environment["ADM_BODY"] = result.notification.body
        environment["ADM_KIND"] = result.notification.kind.rawValue
        environment["ADM_TXN_ID"] = result.id.description
        environment["ADM_THREAD"] = result.thread?.description ?? ""
        let outcome = await ChildProcess.run(
            "/bin/sh", ["-c", command], environment: environment, timeout: Self.timeout)
        if case .notStarted(let reason) = outcome { throw .handler(ShowFailure.hookNotStarted(reason)) }
        if !outcome.succeeded { logger.log(.warning, "watch: --exec for transaction \(result.id) \(outcome)") }
    }
}
