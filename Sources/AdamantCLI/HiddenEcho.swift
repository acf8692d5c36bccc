#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Echo off on a terminal for the length of one prompt, restored however the prompt ends:
/// normally, or by any signal that stops or ends a process by default and can be sent to it
/// (SIGINT, SIGHUP, SIGTERM, SIGTSTP, SIGALRM, …), which then takes its default action as if no
/// handler had been there. After a stop, SIGCONT turns echo off again, so a passphrase typed
/// after `fg` is still not shown. One prompt at a time per process.
enum HiddenEcho {
    /// Those a handler can catch and another process or the kernel's timers may send; not the
    /// faults (SIGSEGV and the like), which come from a bug in this process, not a person.
    static let endingSignals = [
        SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE,
    ]

    /// Runs `body` with echo off on `descriptor`; nil if the terminal's settings cannot be read.
    static func run<T>(on descriptor: Int32, _ body: () -> T) -> T? {
        let shared = echoState
        guard tcgetattr(descriptor, &shared.pointee.visible) == 0 else { return nil }
        shared.pointee.hidden = shared.pointee.visible
        shared.pointee.hidden.c_lflag &= ~tcflag_t(ECHO)
        shared.pointee.descriptor = descriptor
        shared.pointee.isHiding = true

        shared.pointee.onStop = action(restoreAndReraise)
        var previous: [(Int32, sigaction)] = []
        for number in endingSignals + [SIGCONT] {
            var old = sigaction()
            sigaction(number, nil, &old)
            if isIgnored(old) { continue }  // e.g. SIGINT in a background job: stays ignored
            var mine = number == SIGCONT ? action(hideAgain) : shared.pointee.onStop
            sigaction(number, &mine, nil)
            previous.append((number, old))
        }
        shared.pointee.handlesStop = previous.contains { $0.0 == SIGTSTP }
        // A process started from a thread that blocks signals (Foundation.Process spawned from a
        // task does that) would never see them: let this thread take them while it waits.
        var handled = sigset_t(), previousMask = sigset_t()
        sigemptyset(&handled)
        for number in endingSignals + [SIGCONT] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, &previousMask)
        tcsetattr(descriptor, TCSAFLUSH, &shared.pointee.hidden)

        let result = body()

        // Echo back first, handlers after: a signal in between finds echo already on.
        shared.pointee.isHiding = false
        tcsetattr(descriptor, TCSAFLUSH, &shared.pointee.visible)
        for (number, old) in previous {
            var old = old
            sigaction(number, &old, nil)
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        return result
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    private static func action(_ handler: @convention(c) (Int32) -> Void) -> sigaction {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the read is interrupted and simply retried
        return action
    }
}

/// What the signal handlers read: allocated once, before any handler is installed, and
/// written only while echo is being hidden or restored. Handlers touch nothing else and call
/// only async-signal-safe functions.
private struct EchoState {
    var descriptor: Int32 = -1
    var visible = termios()
    var hidden = termios()
    var isHiding = false
    /// Whether SIGTSTP is ours to handle (it is not when the process started with it ignored).
    var handlesStop = false
    var onStop = sigaction()
}

private nonisolated(unsafe) let echoState: UnsafeMutablePointer<EchoState> = {
    let state = UnsafeMutablePointer<EchoState>.allocate(capacity: 1)
    state.initialize(to: EchoState())
    return state
}()

/// Echo back on, then the signal again with its default action: it is blocked while this
/// handler runs and is delivered as soon as it returns.
private func restoreAndReraise(_ number: Int32) {
    let interrupted = errno  // kept for the code this handler interrupted (after a stop, it resumes)
    defer { errno = interrupted }
    tcsetattr(echoState.pointee.descriptor, TCSANOW, &echoState.pointee.visible)
    signal(number, SIG_DFL)
    raise(number)
}

/// Continued after a stop while still asking: echo off again, and ready for the next stop.
private func hideAgain(_ number: Int32) {
    guard echoState.pointee.isHiding else { return }
    let interrupted = errno
    defer { errno = interrupted }
    tcsetattr(echoState.pointee.descriptor, TCSANOW, &echoState.pointee.hidden)
    if echoState.pointee.handlesStop { sigaction(SIGTSTP, &echoState.pointee.onStop, nil) }
}
