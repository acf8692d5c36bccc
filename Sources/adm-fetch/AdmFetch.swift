import AdamantCLI

enum AdmFetch {
    static let tool = Tool(
        name: "adm-fetch",
        overview: "Find, verify and decrypt the ADAMANT transaction behind a push, through the nodes you choose.",
        commands: [FetchCommand.self, WatchCommand.self, NodesCommand.self],
        defaultCommand: FetchCommand.self)
}
