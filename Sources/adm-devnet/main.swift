import AdamantCLI
import Foundation

// A child spawned from a task thread inherits a mask that blocks SIGTERM
// (swift-corelibs-foundation#4772): start from a clean one.
var noSignals = sigset_t()
sigemptyset(&noSignals)
pthread_sigmask(SIG_SETMASK, &noSignals, nil)

let tool = Tool(
    name: "adm-devnet",
    overview: "A local simulated ADAMANT network with an ANS emulator and fault injection.",
    commands: [StartCommand.self, DemoCommand.self])
await tool.main()
