import AdamantCLI

enum AdmPush {
    static let tool = Tool(
        name: "adm-push",
        overview: "Register ADAMANT push tokens privately, through the nodes you choose.",
        commands: [
            RegisterCommand.self, UnregisterCommand.self, StatusCommand.self, QueueCommand.self, FlushCommand.self, RepairCommand.self,
            KeysCommand.self, NodesCommand.self,
        ])
}
