import AdamantCLI

enum AdmDevnet {
    static let tool = Tool(
        name: "adm-devnet",
        overview: "A local simulated ADAMANT network with an ANS emulator and fault injection.",
        commands: [StartCommand.self, DemoCommand.self],
        examples: {
            [
                .init(
                    "adm-devnet demo",
                    "Run a fresh devnet through transfers, messages and a push registration, and show what the ANS sees."
                ),
                .init(
                    "sleep infinity | adm-devnet start --nodes 2 --block-time 1 --fund 1 --quiet &",
                    "Two nodes in the background, a block a second, one funded account; it prints its addresses as one JSON line."
                ),
                .init(
                    "adm-devnet start --fault 1:status:503 --fault 0:delay:800@/api/chats",
                    "Three nodes: the second answers 503, the first answers chat requests 0.8 s late."),
            ]
        })
}
