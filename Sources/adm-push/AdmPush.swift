import AdamantCLI

enum AdmPush {
    static let tool = Tool(
        name: "adm-push",
        overview: "Register ADAMANT push tokens privately, through the nodes you choose.",
        commands: [KeysCommand.self, NodesCommand.self])
}
