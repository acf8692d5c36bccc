import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line on a terminal's standard error that long work redraws in place (`\r`), cleared
/// when it is done. Only for a person watching: never on a pipe, a file or the journal.
public final class ProgressLine: Sendable {

    private struct State {
        var shown = false
        var lastDraw: ContinuousClock.Instant?
    }
    private let state = Mutex(State())
    private let output: Output
    /// Redraws at most this often: a backlog is read far faster than anyone can read a line.
    private let redrawInterval: Duration

    init(output: Output, redrawInterval: Duration = .milliseconds(100)) {
        self.output = output
        self.redrawInterval = redrawInterval
    }

    /// A progress line when standard error is a terminal and not the journal's stream, else nil
    /// (checked once, so work that reports progress pays nothing when it is not shown).
    public static func onTerminal(_ output: Output, style: Logger.Style) -> ProgressLine? {
        style == .timestamped && isatty(output.standardError) == 1 ? ProgressLine(output: output) : nil
    }

    /// The same for a command that does not log: the journal is still told apart.
    public static func onTerminal(_ context: Context) -> ProgressLine? {
        onTerminal(
            context.output,
            style: Logger.style(environment: context.environment, standardError: context.output.standardError))
    }

    /// Shows `text` unless the line was drawn less than the redraw interval ago; `text` is built
    /// only when it is drawn.
    public func update(_ text: @autoclosure () -> String) {
        state.withLock { state in
            let now = ContinuousClock.now
            if let last = state.lastDraw, now - last < redrawInterval { return }
            output.progress(text())
            state.shown = true
            state.lastDraw = now
        }
    }

    /// Takes the line away (the work is done); the next update draws it at once.
    public func clear() {
        state.withLock { state in
            if state.shown { output.clearProgress() }
            state = State()
        }
    }

    /// Runs `write` (a whole line) with the progress line out of its way.
    public func interrupt(_ write: () -> Void) {
        state.withLock { state in
            if state.shown { output.clearProgress() }
            write()
            state.shown = false
        }
    }
}
