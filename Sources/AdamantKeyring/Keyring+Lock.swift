internal import AdamantBus

/// Locking, unlocking, and the prompts the service may ask the user through.
extension Keyring {
    /// Unlocks `items`, through the service's prompt if it shows one (waited for up to the
    /// prompt timeout); `locked` if the prompt is dismissed, cannot be shown, or leaves any
    /// of them locked.
    public func unlock(_ items: [KeyringItem]) async throws(KeyringError) {
        try await unlock(paths: items.map(\.path))
    }

    /// Unlocks the default collection (as `unlock(_:)` does items).
    public func unlockDefaultCollection() async throws(KeyringError) {
        try await unlock(paths: [try await defaultCollection()])
    }

    /// Locks `items`.
    public func lock(_ items: [KeyringItem]) async throws(KeyringError) {
        try await lock(paths: items.map(\.path))
    }

    /// Locks the default collection, and so every item in it.
    public func lockDefaultCollection() async throws(KeyringError) {
        try await lock(paths: [try await defaultCollection()])
    }

    func unlock(paths: [String]) async throws(KeyringError) {
        guard !paths.isEmpty else { return }
        var (unlocked, prompt) = try await call(
            SecretService.path, SecretService.interface, "Unlock", [.objectPaths(paths)]
        ) { reader throws(BusError) in (try reader.objectPaths(), try reader.objectPath()) }
        if prompt != SecretService.noPrompt {
            unlocked += try await self.prompt(prompt, result: "ao") { reader throws(BusError) in
                try reader.objectPaths()
            }
        }
        let still = Set(paths).subtracting(unlocked)
        guard still.isEmpty else { throw .locked("\(still.sorted().joined(separator: ", ")) stayed locked") }
    }

    func lock(paths: [String]) async throws(KeyringError) {
        guard !paths.isEmpty else { return }
        let answer = try await call(
            SecretService.path, SecretService.interface, "Lock", [.objectPaths(paths)]
        ) { reader throws(BusError) in (locked: try reader.objectPaths(), prompt: try reader.objectPath()) }
        let prompt = answer.prompt
        if prompt != SecretService.noPrompt {
            _ = try await self.prompt(prompt, result: nil) { _ throws(BusError) in () }
        }
    }

    /// Shows the prompt at `path` and waits, up to `promptTimeout`, for its `Completed`
    /// signal; its result, a variant holding `result` (none read when nil), read by `read`.
    /// Dismissed, or unanswered in time (no prompter, no display), it is `locked`.
    func prompt<Result: Sendable>(
        _ path: String, result contents: String?, read: @escaping @Sendable (BusReader) throws(BusError) -> Result
    ) async throws(KeyringError) -> Result {
        let (completions, completion) = AsyncStream<Swift.Result<Result?, KeyringError>>.makeStream()
        // Before Prompt: the signal may come before Prompt's answer.
        do {
            try await bus.subscribe(to: SecretService.name, path: path, interface: SecretService.prompt) {
                member, reader in
                guard member == "Completed" else { return }
                do throws(BusError) {
                    if try reader.boolean() {
                        completion.yield(.success(nil))  // dismissed
                    } else if let contents {
                        completion.yield(.success(try reader.variant(contents, "the prompt's result", read)))
                    } else {
                        completion.yield(.success(try read(reader)))
                    }
                } catch {
                    completion.yield(.failure(.malformedAnswer("Completed: \(error.description)")))
                }
                completion.finish()
            }
        } catch {
            throw KeyringError(error)
        }
        // No window of ours to put the prompt over: "".
        try await bus.secretCall(path, SecretService.prompt, "Prompt", [.string("")]) { _ throws(BusError) in () }
        guard let outcome = await Self.first(of: completions, within: promptTimeout) else {
            // Taken down, so that it does not pop up later for nobody.
            _ = try? await bus.secretCall(path, SecretService.prompt, "Dismiss", []) { _ throws(BusError) in () }
            throw .locked(
                "the unlock prompt was not answered within \(promptTimeout.components.seconds) s (is there a display and a prompter?)"
            )
        }
        guard let value = try outcome.get() else {
            throw .locked("the unlock prompt was dismissed, or could not be shown (no display, or no prompter)")
        }
        // The time the user took is not the service's.
        restartDeadline()
        return value
    }

    /// The first element of `stream`, or nil if none comes within `limit`.
    private static func first<Element: Sendable>(of stream: AsyncStream<Element>, within limit: Duration) async
        -> Element?
    {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask { await stream.first { _ in true } }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }
}
