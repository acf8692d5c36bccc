import AdamantCLI

enum AdmDevnet {
    static let tool = Tool(
        name: "adm-devnet",
        overview: "A local simulated ADAMANT network with an ANS emulator and fault injection.",
        commands: [StartCommand.self, DemoCommand.self])
}
