import AdamantCLI

/// A running `adm-fetch watch --json`, read as it writes: its log on standard error says when
/// it started and when a node's socket took it, each line of standard output is a notification.
actor DemoWatch {
    private let process: PipedProcess
    private let name: String
    private var lines: AsyncStream<PipedProcess.Line>.Iterator
    private var said: [String] = []

    init(_ process: PipedProcess, name: String) {
        self.process = process
        self.name = name
        lines = process.lines.makeAsyncIterator()
    }

    /// Returns once the watch logs that it watches from a block.
    func started() async throws { _ = try await line(.error, "started") { $0.contains("Watching ") } }

    /// Returns once the watch logs that a node's socket is live.
    func subscribed() async throws { _ = try await line(.error, "went live") { $0.contains("watch: live on") } }

    /// When the watch wrote its first notification.
    func firstNotification() async throws -> ContinuousClock.Instant {
        try await line(.output, "showed the message") { _ in true }.time
    }

    /// Stops the watch and waits for its end.
    func end() async {
        process.terminate()
        _ = await process.wait()
    }

    /// Asks the watch to stop, for a demo that failed.
    nonisolated func stop() { process.terminate() }

    /// The next line of `stream` that `matches`, within 30 s: a watch that takes longer is
    /// stopped, which ends its lines.
    private func line(_ stream: PipedProcess.Stream, _ what: String, matches: (String) -> Bool) async throws
        -> PipedProcess.Line
    {
        let watchdog = Task { [process] in
            try await Task.sleep(for: .seconds(30))
            process.terminate()
        }
        defer { watchdog.cancel() }
        var iterator = lines
        defer { lines = iterator }
        while let line = await iterator.next(isolation: self) {
            if line.stream == .error { said.append(line.text) }
            if line.stream == stream && matches(line.text) { return line }
        }
        throw DemoError("\(name) ended before it \(what): \(said.joined(separator: "\n"))")
    }
}
