import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-Z typed at the passphrase prompt, on a pty that is the command's controlling terminal,
/// so the kernel's line discipline acts as for a person: it drops the unfinished line and stops
/// the foreground job. After `fg` the prompt must say so and ask again, with echo off.
@Suite("Ctrl-Z at the passphrase prompt", .timeLimit(.minutes(1)))
struct StopAtPromptTests {
    static let passphrase = KeysCommandTests.passphrase
    static let discarded = "What was typed before the stop was discarded: type it again from the start."
    static let askedAgain = discarded + "\r\nPassphrase: "

    /// A shell with job control runs the command as its foreground job; Ctrl-Z stops it, and
    /// the shell continues it with `fg` once the test opens the gate (a FIFO).
    @Test func ctrlZThenFgSaysWhatWasTypedIsGoneAndAsksAgain() async throws {
        let terminal = try PseudoTerminal()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let gate = folder.appendingPathComponent("gate").path
        #expect(mkfifo(gate, 0o600) == 0)
        // `fg` names the job on standard output: it goes to the terminal, where a person sees it.
        let script = #"set -m; "$0" keys --json; read -r _ < "$1"; fg >&2"#
        let echoWhileStopped = Mutex<Bool?>(nil)
        let screen = Screen(terminal)
        let result = try await run(
            "/usr/bin/setsid", ["-w", "-c", "/bin/bash", "-c", script, Binaries.url("adm-push").path, gate],
            standardInput: terminal.replica, standardError: terminal.replica, timeout: 30
        ) { _ in
            #expect(eventually { screen.shows("Passphrase: ") && !terminal.echoIsOn })
            terminal.type("wrap track hamster\u{1A}")  // the first words, then Ctrl-Z
            #expect(eventually { screen.shows("Stopped") })
            echoWhileStopped.withLock { $0 = terminal.echoIsOn }
            #expect(eventually { openGate(gate) })
            #expect(eventually { screen.shows(Self.askedAgain) && !terminal.echoIsOn })
            terminal.type(Self.passphrase + "\n")
        }
        #expect(echoWhileStopped.withLock { $0 } == true)
        #expect(screen.shows(Self.askedAgain))
        #expect(result.status == 0 && result.signal == nil)
        #expect(result.stdout == KeysCommandTests.expected + "\n")
        #expect(!screen.shows("hamster"))
        #expect(terminal.echoIsOn)
    }

    /// With no shell to come back to (the command leads its own session, as after `exec` from
    /// a login shell), the kernel drops the stop: echo stays off and it asks again at once.
    @Test func ctrlZWithNoShellToReturnToKeepsEchoOffAndAsksAgain() async throws {
        let terminal = try PseudoTerminal()
        let screen = Screen(terminal)
        let result = try await run(
            "/usr/bin/setsid", ["-w", "-c", Binaries.url("adm-push").path, "keys", "--json"],
            standardInput: terminal.replica, standardError: terminal.replica, timeout: 30
        ) { _ in
            #expect(eventually { screen.shows("Passphrase: ") && !terminal.echoIsOn })
            terminal.type("wrap track hamster\u{1A}")
            #expect(eventually { screen.shows(Self.askedAgain) })
            #expect(!terminal.echoIsOn)
            terminal.type(Self.passphrase + "\n")
        }
        #expect(screen.shows(Self.askedAgain))
        #expect(result.status == 0 && result.signal == nil)
        #expect(result.stdout == KeysCommandTests.expected + "\n")
        #expect(!screen.shows("hamster"))
        #expect(terminal.echoIsOn)
    }

    /// A stopped prompt that is then killed (a shell's `kill %1` sends SIGTERM, then SIGCONT),
    /// or killed after `fg`: echo is back on and the signal ends it as usual.
    @Test(arguments: [true, false])
    func killedAfterAStopRestoresEcho(whileStopped: Bool) async throws {
        let terminal = try PseudoTerminal()
        let result = try await run("adm-push", ["keys"], standardInput: terminal.replica, timeout: 10) { process in
            let pid = process.processIdentifier
            #expect(eventually { !terminal.echoIsOn })
            kill(pid, SIGTSTP)
            #expect(eventually { processState(pid) == "T" })
            if whileStopped {
                kill(pid, SIGTERM)
                kill(pid, SIGCONT)
            } else {
                kill(pid, SIGCONT)
                #expect(eventually { !terminal.echoIsOn })
                kill(pid, SIGTERM)
            }
        }
        #expect(!result.timedOut)
        #expect(result.signal == SIGTERM)
        #expect(terminal.echoIsOn)
    }
}

/// Everything a terminal has shown so far, gathered while a test polls it.
private final class Screen: Sendable {
    private let terminal: PseudoTerminal
    private let shown = Mutex("")

    init(_ terminal: PseudoTerminal) { self.terminal = terminal }

    func shows(_ text: String) -> Bool {
        shown.withLock { shown in
            shown += terminal.screen()
            return shown.contains(text)
        }
    }
}

/// Lets the script past its `read` from the FIFO; false while nobody reads it yet.
private func openGate(_ path: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_NONBLOCK)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return write(descriptor, "\n", 1) == 1
}
