import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The passphrase prompt on a real pty: echo off while asking, and back on however it ends.
@Suite("passphrase prompt", .timeLimit(.minutes(1)))
struct PromptTests {
    static let passphrase = KeysCommandTests.passphrase

    /// On a terminal it asks, with echo off: what is typed never appears on the screen.
    @Test func asksOnATerminalWithEchoOff() async throws {
        let terminal = try PseudoTerminal()
        let result = try await run("adm-push", ["keys", "--json"], standardInput: terminal.replica) { _ in
            #expect(eventually { !terminal.echoIsOn })  // type only once echo is off
            terminal.type(Self.passphrase + "\n")
        }
        #expect(result.status == 0)
        #expect(result.stdout == KeysCommandTests.expected + "\n")
        #expect(result.stderr == "Passphrase: \n")
        #expect(!terminal.screen().contains("hamster"))
        #expect(terminal.echoIsOn)
    }

    /// Ctrl-C, Ctrl-\ or a kill while asking: echo is back on and the signal ends the process
    /// as it would have without the prompt. Started from a shell (the signal goes to the main
    /// thread while another reads) or with signals blocked (only the reading thread takes them).
    @Test(arguments: [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGALRM], [false, true])
    func aSignalWhileAskingRestoresEcho(_ signal: Int32, blocked: Bool) async throws {
        let terminal = try PseudoTerminal()
        let result = try await run(
            "adm-push", ["keys"], standardInput: terminal.replica, inheritingBlockedSignals: blocked, timeout: 10
        ) { process in
            #expect(eventually { !terminal.echoIsOn })
            kill(process.processIdentifier, signal)
        }
        #expect(!result.timedOut)
        #expect(result.signal == signal)
        #expect(terminal.echoIsOn)
        #expect(result.stdout.isEmpty)
    }

    /// SIGTSTP while asking: echo is on while stopped, off again once continued, and the
    /// passphrase typed after that is still not shown. What was typed before the stop is
    /// discarded (a kill does not make the kernel drop it, as Ctrl-Z does) and it asks again.
    @Test(arguments: [false, true])
    func aStopWhileAskingShowsEchoUntilContinued(blocked: Bool) async throws {
        let terminal = try PseudoTerminal()
        let echoWhileStopped = Mutex<Bool?>(nil)
        let result = try await run(
            "adm-push", ["keys", "--json"], standardInput: terminal.replica, inheritingBlockedSignals: blocked,
            timeout: 10
        ) { process in
            let pid = process.processIdentifier
            #expect(eventually { !terminal.echoIsOn })
            terminal.type("wrap track ")
            kill(pid, SIGTSTP)
            #expect(eventually { processState(pid) == "T" })
            echoWhileStopped.withLock { $0 = terminal.echoIsOn }
            kill(pid, SIGCONT)
            #expect(eventually { !terminal.echoIsOn })
            _ = terminal.screen()
            terminal.type(Self.passphrase + "\n")
        }
        #expect(echoWhileStopped.withLock { $0 } == true)
        #expect(result.status == 0 && result.signal == nil)
        #expect(result.stdout == KeysCommandTests.expected + "\n")
        #expect(result.stderr == "Passphrase: \(StopAtPromptTests.discarded)\nPassphrase: \n")
        #expect(!terminal.screen().contains("hamster"))
        #expect(terminal.echoIsOn)
    }

    /// A signal the process was started ignoring (SIGINT and SIGQUIT in a background job)
    /// stays ignored while asking.
    @Test func anIgnoredSignalStaysIgnored() async throws {
        let terminal = try PseudoTerminal()
        let keys = Binaries.url("adm-push").path
        let result = try await run(
            "/bin/sh", ["-c", "trap '' INT TSTP; exec \"$0\" keys --json", keys], standardInput: terminal.replica,
            timeout: 10
        ) { process in
            #expect(eventually { !terminal.echoIsOn })
            kill(process.processIdentifier, SIGINT)
            kill(process.processIdentifier, SIGTSTP)
            kill(process.processIdentifier, SIGCONT)
            terminal.type(Self.passphrase + "\n")
        }
        #expect(result.status == 0 && result.signal == nil)
        #expect(result.stdout == KeysCommandTests.expected + "\n")
    }

    /// Ctrl-D (or Enter alone) at the prompt: nothing was entered, and it says so.
    @Test(arguments: ["\u{4}", "\n"])
    func nothingEnteredSaysSo(_ keys: String) async throws {
        let terminal = try PseudoTerminal()
        let result = try await run("adm-push", ["keys"], standardInput: terminal.replica, timeout: 10) { _ in
            #expect(eventually { !terminal.echoIsOn })
            terminal.type(keys)
        }
        #expect(result.status == 64)
        #expect(result.stderr == "Passphrase: \nError: no passphrase entered\n")
        #expect(terminal.echoIsOn)
    }
}
