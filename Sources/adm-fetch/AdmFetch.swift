import AdamantAccountCLI
import AdamantCLI
import AdamantStore

enum AdmFetch {
    static let tool = Tool(
        name: "adm-fetch",
        overview: "Find, verify and decrypt the ADAMANT transaction behind a push, through the nodes you choose.",
        commands: [FetchCommand.self, WatchCommand.self, NodesCommand.self],
        defaultCommand: FetchCommand.self,
        examples: {
            [
                .init(
                    "adm-fetch --payload push.json", "Show the notification for a push as delivered (APNs or FCM JSON)."
                ),
                .init(
                    "adm-fetch 14416988838852300679 --json",
                    "Find, verify and decrypt a transaction by its id, and print it as JSON."),
                .init(
                    "adm-fetch watch --notify",
                    "With no push service: a desktop notification for each incoming message or transfer, one bubble per chat."
                ),
            ]
        },
        manual: AccountManual.supplement,
        // The stores written to are left checkpointed: whole in their main files.
        beforeExit: { WrittenStores.checkpoint() })
}
