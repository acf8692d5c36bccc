import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantFetch
import AdamantNodes
import AdamantPush
import AdamantStore

/// What `status` and `repair` learn from the pushes `adm-fetch` recorded in this home.
enum PushEvidenceReport {
    /// Nil when this home has no record of pushes, or no node can be read: the evidence is a
    /// hint, never a reason for a command to fail.
    /// `refresh` false: the chain was just read (by a `status` pass).
    static func assess(
        _ outbox: Outbox, account: Address, refresh: Bool = true, _ arguments: ParsedArguments, _ context: Context
    ) async -> PushEvidence? {
        guard let home = try? OutboxOptions.homeDirectory(arguments, context),
            SmallFile.exists(atPath: home + "/" + NotificationLog.fileName),
            let log = try? NotificationLog(home: home), let client = outbox.chain as? NodeClient,
            let tokens = try? await outbox.tokensOnChain(refresh: refresh)
        else { return nil }
        return try? await PushEvidenceCheck(account: account, log: log, client: client, wallClock: context.clocks.wall)
            .assess(tokens)
    }

    static func print(_ evidence: PushEvidence?, _ context: Context) {
        if let evidence { context.output.error("Warning: \(evidence)") }
    }
}
