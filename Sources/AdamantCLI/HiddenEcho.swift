#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Echo off on a terminal for the length of one prompt, restored however the prompt ends:
/// normally, or by any signal that ends a process by default and can be sent to it (SIGINT,
/// SIGHUP, SIGTERM, SIGALRM, …), which then takes its default action as if no handler had been
/// there. Ctrl-Z (SIGTSTP) shows echo while stopped; once continued, echo is off again and the
/// reader is woken to ask anew, since what was typed before the stop is gone (see `stopWhileAsking`).
/// One prompt at a time per process.
enum HiddenEcho {
    /// Those a handler can catch and another process or the kernel's timers may send; not the
    /// faults (SIGSEGV and the like), which come from a bug in this process, not a person.
    static let endingSignals = [
        SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE,
    ]

    /// What ended a wait for input at the prompt.
    enum Wake: Equatable {
        /// The terminal has a line (or end of input) to read.
        case input
        /// Continued after Ctrl-Z: what was typed before it is discarded, so ask again.
        case resumed
    }

    /// Given to the body of `run`: waits on the terminal and on the stop handler at once, since
    /// the handler may run on another thread while this one stays blocked.
    struct Waiter {
        fileprivate let descriptor: Int32
        fileprivate let resumed: Int32

        func next() -> Wake {
            var waits = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: resumed, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                // A failed poll is left for the read that follows to report.
                guard poll(&waits, nfds_t(waits.count), -1) >= 0 || errno == EINTR else { return .input }
                if waits[1].revents != 0 {
                    drain(resumed)
                    return .resumed
                }
                if waits[0].revents != 0 { return .input }
            }
        }
    }

    /// Runs `body` with echo off on `descriptor`; nil, with `errno` set, if echo cannot be
    /// turned off or its restoring cannot be ensured: then the caller must not ask, since what
    /// is typed would be shown.
    static func run<T>(on descriptor: Int32, _ body: (Waiter) -> T) -> T? {
        let shared = echoState
        guard tcgetattr(descriptor, &shared.pointee.visible) == 0 else { return nil }
        shared.pointee.hidden = shared.pointee.visible
        shared.pointee.hidden.c_lflag &= ~tcflag_t(ECHO)
        shared.pointee.descriptor = descriptor
        drain(shared.pointee.resumed.read)  // a wake left by a handler that ran after the last prompt
        shared.pointee.isHiding = true

        shared.pointee.onStop = action(stopWhileAsking)
        let onEnd = action(restoreAndReraise)
        let onContinue = action(hideAgain)
        var previous: [(Int32, sigaction)] = []
        // A process started from a thread that blocks signals (Foundation.Process spawned from a
        // task does that) would never see them: let this thread take them while it waits.
        var handled = sigset_t()
        var previousMask = sigset_t()
        sigemptyset(&handled)
        for number in endingSignals + [SIGTSTP, SIGCONT] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_BLOCK, nil, &previousMask)
        // Echo back first, handlers after: a signal in between finds echo already on.
        func restore() {
            let failure = errno
            shared.pointee.isHiding = false
            tcsetattr(descriptor, TCSAFLUSH, &shared.pointee.visible)
            for (number, old) in previous {
                var old = old
                sigaction(number, &old, nil)
            }
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            errno = failure
        }

        for number in endingSignals + [SIGTSTP, SIGCONT] {
            var old = sigaction()
            guard sigaction(number, nil, &old) == 0 else {
                restore()
                return nil
            }
            if isIgnored(old) { continue }  // e.g. SIGINT in a background job: stays ignored
            var mine = number == SIGTSTP ? shared.pointee.onStop : number == SIGCONT ? onContinue : onEnd
            guard sigaction(number, &mine, nil) == 0 else {
                restore()
                return nil
            }
            previous.append((number, old))
        }
        let unmasked = pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        guard unmasked == 0 else {
            errno = unmasked
            restore()
            return nil
        }
        // tcsetattr succeeds when any one change was made, so read back that echo is off.
        var now = termios()
        guard tcsetattr(descriptor, TCSAFLUSH, &shared.pointee.hidden) == 0, tcgetattr(descriptor, &now) == 0 else {
            restore()
            return nil
        }
        guard now.c_lflag & tcflag_t(ECHO) == 0 else {
            restore()
            errno = ENOTTY
            return nil
        }

        let result = body(Waiter(descriptor: descriptor, resumed: shared.pointee.resumed.read))
        restore()
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

    private static func drain(_ descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 16)
        while read(descriptor, &bytes, bytes.count) > 0 {}
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
    /// Set by the stop handler from Ctrl-Z until it has hidden echo again after continuing.
    var isStopping = false
    var onStop = sigaction()
    /// The stop handler writes a byte here once continued, for the waiting reader. Made once and
    /// never closed, so a handler running late can never write into a descriptor reused since;
    /// both ends -1 if it could not be made (then nobody is told, and the prompt is not repeated).
    var resumed: (read: Int32, write: Int32) = (-1, -1)
}

private nonisolated(unsafe) let echoState: UnsafeMutablePointer<EchoState> = {
    let state = UnsafeMutablePointer<EchoState>.allocate(capacity: 1)
    state.initialize(to: EchoState())
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)  // neither a handler nor a drain may block
        }
        state.pointee.resumed = (ends[0], ends[1])
    }
    return state
}()

/// Echo back on, then the signal again with its default action: it is blocked while this
/// handler runs and is delivered as soon as it returns.
private func restoreAndReraise(_ number: Int32) {
    let interrupted = errno  // kept for the code this handler interrupted
    defer { errno = interrupted }
    echoState.pointee.isHiding = false  // so a stop handler carrying on in another thread leaves echo on
    tcsetattr(echoState.pointee.descriptor, TCSANOW, &echoState.pointee.visible)
    signal(number, SIG_DFL)
    raise(number)
}

/// Ctrl-Z while asking. The unfinished line is thrown away: the shell reads the terminal next and
/// would take it as its own input, echoed (the kernel flushes it anyway for Ctrl-Z itself, but not
/// for a SIGTSTP sent by kill or under `stty noflsh`). Echo goes back on and the process stops
/// right here, with the signal unblocked inside the handler, so that this handler carries on once
/// continued: echo off again and the reader woken to ask anew. In a process group no shell can
/// continue (an orphaned one, e.g. after `exec` from a login shell) the kernel drops the stop
/// and the same happens at once, instead of the rest being typed with echo on.
private func stopWhileAsking(_ number: Int32) {
    let interrupted = errno  // kept for the code this handler interrupted
    defer { errno = interrupted }
    let state = echoState
    state.pointee.isStopping = true
    tcflush(state.pointee.descriptor, TCIFLUSH)
    tcsetattr(state.pointee.descriptor, TCSANOW, &state.pointee.visible)
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    signal(SIGTSTP, SIG_DFL)
    raise(SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &stop, nil)  // stopped here until continued
    pthread_sigmask(SIG_BLOCK, &stop, nil)  // another Ctrl-Z waits until this handler is done
    if state.pointee.isHiding {
        sigaction(SIGTSTP, &state.pointee.onStop, nil)
        // The reader is told before echo goes off: what is typed once it is off belongs to the
        // new prompt and must not be thrown away with the old line.
        var wake: UInt8 = 1
        _ = write(state.pointee.resumed.write, &wake, 1)
        hideWhileAsking()
    }
    state.pointee.isStopping = false
}

/// Continued after a stop that was not Ctrl-Z (SIGSTOP cannot be caught): echo off again, in case
/// the shell restored its own settings meanwhile. After Ctrl-Z its handler does the same itself.
private func hideAgain(_ number: Int32) {
    guard !echoState.pointee.isStopping else { return }
    let interrupted = errno
    defer { errno = interrupted }
    hideWhileAsking()
}

/// Echo off again, unless the prompt has ended; and on again if it ended meanwhile (a kill
/// pending while stopped is often handled in another thread at the same moment as the continue).
private func hideWhileAsking() {
    guard echoState.pointee.isHiding else { return }
    tcsetattr(echoState.pointee.descriptor, TCSANOW, &echoState.pointee.hidden)
    if !echoState.pointee.isHiding { tcsetattr(echoState.pointee.descriptor, TCSANOW, &echoState.pointee.visible) }
}
