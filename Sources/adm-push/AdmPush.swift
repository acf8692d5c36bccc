import AdamantAccountCLI
import AdamantCLI
import AdamantStore

enum AdmPush {
    static let tool = Tool(
        name: "adm-push",
        overview: "Register ADAMANT push tokens privately, through the nodes you choose.",
        commands: [
            RegisterCommand.self, UnregisterCommand.self, StatusCommand.self, QueueCommand.self, FlushCommand.self,
            RepairCommand.self, LoginCommand.self, LogoutCommand.self, KeysCommand.self, NodesCommand.self,
            ConfigCommand.self,
        ],
        examples: {
            [
                .init(
                    "adm-push login",
                    "Ask for the passphrase and keep it in the desktop's keyring, where every command then finds it."),
                .init(
                    "adm-push keys --passphrase-file ~/.adm-passphrase",
                    "The address and public key of a passphrase kept in a private file."),
                .init(
                    "adm-push register --token \"$TOKEN\" --provider apns",
                    "Register an APNs token and wait for the signal to be in a block (exit 0), or leave it queued (exit 75)."
                ),
                .init(
                    "adm-push unregister --all --home /tmp/fresh-home",
                    "Unregister every token the chain shows this account registered, from a fresh home."),
                .init(
                    "adm-push flush --loop --interval 300",
                    "Finish what is pending every five minutes, until interrupted."),
                .init(
                    "adm-push config --json",
                    "Each setting's effective value and where it came from: a flag, the environment, the config file or the default."
                ),
                .init(
                    "adm-push nodes --node http://127.0.0.1:36666 --node https://clown.adamant.im",
                    "Check two nodes: status, height, version, latency and clock."),
            ]
        },
        manual: AccountManual.supplement,
        // The stores written to are left checkpointed: whole in their main files.
        beforeExit: { WrittenStores.checkpoint() })
}
