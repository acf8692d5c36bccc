import AdamantCLI
import Foundation

// A child spawned from a task thread inherits a mask that blocks SIGTERM
// (swift-corelibs-foundation#4772): start from a clean one.
var noSignals = sigset_t()
sigemptyset(&noSignals)
pthread_sigmask(SIG_SETMASK, &noSignals, nil)

AdmDevnet.tool.main()
